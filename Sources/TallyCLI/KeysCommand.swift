import ArgumentParser
import Foundation
import TallyAuth

/// `tally keys`: the key files a deployment's processes read.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make the key files Tally's processes read.",
        subcommands: [Signing.self])

    struct Signing: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a key pair that signs and verifies access tokens.",
            discussion: """
                Writes NAME.private.jwk (mode 0600) and NAME.public.jwk into --dir, as JSON Web Keys (Ed25519). NAME is the key id \
                tokens carry. The identity service signs with the private key (--signing-key, TALLY_SIGNING_KEY); every other \
                process needs only the public key (--public-keys, TALLY_PUBLIC_KEYS). To rotate: make a new pair, give every \
                process the new public key beside the old, switch the identity service to the new private key, and retire the \
                old public key once the longest access token lifetime has passed.
                """)

        @Argument(help: "The key's name and id: letters, digits, '.', '_' or '-', such as tally-2026-11.")
        var name: String

        @Option(help: "Where to write the files (default: <data-dir>/keys).")
        var dir: String?

        @Option(help: "The data directory, for the default --dir. Env: TALLY_DATA_DIR.")
        var dataDir: String = EnvironmentDefaults.dataDirectory

        func run() throws {
            let directory = dir ?? KeyOptions.defaultDirectory(dataDirectory: dataDir)
            let made = try KeyFiles.create(name: name, in: directory)
            print("""
                private key: \(made.privateFile) (mode 0600; only the identity service reads it)
                public key:  \(made.publicFile) (give it to every process that checks tokens)
                """)
        }
    }
}
