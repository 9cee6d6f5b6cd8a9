import ArgumentParser
import Foundation
import TallyAuth
import TallyTransportSecurity
import TallyProtocol

/// `tally keys`: the key files a deployment's processes read.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make the key files Tally's processes read.",
        subcommands: [Signing.self, Generate.self])

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

        @OptionGroup var dataDirectory: DataDirectoryOption

        func run() throws {
            let directory = dir ?? KeyOptions.defaultDirectory(dataDirectory: dataDirectory.path)
            let made = try KeyFiles.create(name: name, in: directory)
            print("""
                private key: \(made.privateFile) (mode 0600; only the identity service reads it)
                public key:  \(made.publicFile) (give it to every process that checks tokens)
                """)
        }
    }

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a CURVE key pair a process connects or serves with.",
            discussion: """
                Writes NAME.key (the public key, to hand out) and NAME.key_secret (mode 0600, stays with the process it \
                names) into --dir, in the certificate format of the ZeroMQ guide's tools (czmq's zcert, Z85 keys). A process \
                names its own with --curve-key (TALLY_CURVE_KEY); clients name the servers' public files with --gateway-key \
                and --notifier-key; a server admits the public files copied into its --allow directory (TALLY_CURVE_ALLOW). \
                --role and --service are written into the certificate, and the server reads them from its copy: client keys \
                may call through the gateway, worker keys may serve (--service limits which) and publish events, subscriber \
                keys may read alerts. The gateway's own pair needs no role; the notifier's needs --role client --role worker \
                --service alerts (it calls the gateway and serves alerts); ops/curve-keys.sh makes a deployment's whole set.
                """)

        @Argument(help: "The key's name: letters, digits, '.', '_' or '-', such as calc-worker or ops-laptop.")
        var name: String

        @Option(help: "What the key may do: client, worker or subscriber; repeat for several (default: client).")
        var role: [String] = []

        @Option(help: "A service a worker key may serve; repeat for several (default: any).")
        var service: [String] = []

        @Option(help: "Where to write the files (default: <data-dir>/curve).")
        var dir: String?

        @OptionGroup var dataDirectory: DataDirectoryOption

        func validate() throws {
            for role in role where CurveRole(rawValue: role) == nil {
                throw ValidationError("--role must be one of \(CurveRole.allCases.map(\.rawValue).joined(separator: ", ")), not '\(role)'")
            }
            for service in service where !Majordomo.isValidServiceName(Data(service.utf8)) || service.contains(",") {
                throw ValidationError("--service '\(service)' is not a service name")
            }
            if !service.isEmpty && !role.contains(CurveRole.worker.rawValue) {
                throw ValidationError("--service limits a worker key: add --role worker")
            }
        }

        func run() throws {
            let directory = dir ?? URL(fileURLWithPath: dataDirectory.path).appendingPathComponent("curve").path
            var metadata: [(String, String)] = []
            if !role.isEmpty { metadata.append(("roles", role.joined(separator: ","))) }
            if !service.isEmpty { metadata.append(("services", service.joined(separator: ","))) }
            let made = try CurveCertificate.create(name: name, in: directory, metadata: metadata)
            print("""
                secret key: \(made.secretFile) (mode 0600; only the process it names reads it: --curve-key)
                public key: \(made.publicFile) (copy it into the --allow directory of the servers it connects to)
                \(made.keys.publicKey)
                """)
        }
    }
}
