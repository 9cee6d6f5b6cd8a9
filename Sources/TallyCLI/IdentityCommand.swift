import ArgumentParser
import Foundation
import TallyAuth
import TallyCatalog
import TallyIdentity

/// `tally identity`: what an operator does on the identity host's data directory itself, without
/// the gateway and without signing in: the first admin, and service tokens for programs.
struct IdentityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Add people and issue service tokens on the identity service's data directly (on its host).",
        subcommands: [AddUser.self, ServiceToken.self])

    struct AddUser: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-user",
            abstract: "Add a person with roles (such as the first admin), or give an existing one the roles.",
            discussion: """
                The password comes from --password-file or standard input (--password-stdin); with neither, one is made up \
                and printed this once. Example: tally identity add-user olga --role admin
                """)

        @Argument(help: "The username.")
        var username: String

        @Option(name: .customLong("role"), help: "A role to give, such as admin (repeat for several).")
        var roles: [String] = []

        @Flag(help: "Read the password from standard input (the first line).")
        var passwordStdin = false

        @Option(help: "Read the password from this file (the first line).")
        var passwordFile: String?

        @OptionGroup var dataDirectory: DataDirectoryOption

        @OptionGroup var database: DatabaseOptions

        @OptionGroup var passwordHashing: PasswordHashingOptions

        func validate() throws {
            guard !(passwordStdin && passwordFile != nil) else { throw ValidationError("give --password-stdin or --password-file, not both") }
        }

        func run() throws {
            let administration = IdentityAdministration(
                store: try ServiceCatalog.identityStore(data: try database.location(dataDirectory: dataDirectory.path)), passwordHashing: passwordHashing.parameters)
            let chosen: String? =
                if passwordStdin { PasswordInput.firstLine(FileHandle.standardInput.readDataToEndOfFile()) }
                else if let passwordFile { PasswordInput.firstLine(try Data(contentsOf: URL(fileURLWithPath: passwordFile))) }
                else { nil }
            let password = chosen ?? IdentityAdministration.generatePassword()
            if try administration.addUser(username, password: password, roles: roles) {
                print("added \(username.lowercased())\(roles.isEmpty ? "" : " with \(roles.joined(separator: ", "))")")
                if chosen == nil { print("password (shown this once): \(password)") }
            } else {
                print("\(username.lowercased()) exists already; kept their password\(roles.isEmpty ? "" : ", gave them \(roles.joined(separator: ", "))")")
            }
        }
    }

    struct ServiceToken: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "service-token",
            abstract: "Issue a service token for a program (such as the notifier), making its service account if needed.",
            discussion: """
                The program trades the token for short-lived access tokens (identity.service_login). Keep it in a file of \
                mode 0600 on the program's host (--out). Revoke it with identity.revoke_service_token. Example: \
                tally identity service-token notifier --out /etc/tally/notifier.token
                """)

        @Argument(help: "The service account's name, such as notifier.")
        var name: String

        @Option(name: .customLong("role"), help: "Roles of a new service account (repeat for several; default: service).")
        var roles: [String] = []

        @Option(help: "Write the token to this file (mode 0600) instead of standard output.")
        var out: String?

        @Flag(help: "Replace the --out file if it exists.")
        var force = false

        @OptionGroup var dataDirectory: DataDirectoryOption

        @OptionGroup var database: DatabaseOptions

        func run() throws {
            if let out, !force, FileManager.default.fileExists(atPath: out) {
                throw ValidationError("\(out) exists already; use --force to replace it")
            }
            let administration = IdentityAdministration(store: try ServiceCatalog.identityStore(data: try database.location(dataDirectory: dataDirectory.path)))
            let token = try administration.issueServiceToken(name: name, roles: roles.isEmpty ? ["service"] : roles)
            if let out {
                try SecretFile.write(Data((token + "\n").utf8), to: out, replacing: force)
                print("service token for \(name.lowercased()) written to \(out)")
            } else {
                print(token)
            }
        }
    }
}

/// Passwords given to the command line by file or pipe.
enum PasswordInput {
    /// The first line of `data`, without its line break.
    static func firstLine(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self).split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) } ?? ""
    }
}
