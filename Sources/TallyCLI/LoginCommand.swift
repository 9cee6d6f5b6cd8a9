import ArgumentParser
import Foundation
import TallyClient
import TallyProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tally login`: signs in through the gateway and stores the tokens for `tally call`.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in, and store the tokens tally call sends.",
        discussion: """
            Asks for the password on the terminal (without echo), or reads it from standard input with --password-stdin. \
            Stores the access and refresh tokens in $XDG_CONFIG_HOME/tally/logins.json (or ~/.config/tally/logins.json), \
            mode 0600, for this gateway endpoint; tally call sends the access token and refreshes it when it expires.

            Example: tally login ann
            """)

    @Argument(help: "Your username.")
    var username: String

    @Flag(help: "Read the password from standard input (the first line) instead of asking.")
    var passwordStdin = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let password = passwordStdin ? PasswordInput.firstLine(FileHandle.standardInput.readDataToEndOfFile()) : try PasswordPrompt.ask("Password for \(username): ")
        let client = try connection.client()
        // With a key the gateway may give the login to another worker if the first dies holding
        // it (identity does not store the tokens for the key: a second run is a second session).
        let reply = try await connection.send {
            try await client.call(
                "identity.login", ["username": .string(username), "password": .string(password)],
                idempotencyKey: UUID().uuidString.lowercased())
        }
        guard let result = reply.result, let login = LoginStore.Login(username: username.lowercased(), result: result) else {
            FileHandle.standardError.write(Data("tally login: \(reply.error?.message ?? "no tokens in the reply")\n".utf8))
            throw ExitCode(1)
        }
        let store = LoginStore.standard
        try store.save(login, for: connection.endpoint)
        print("logged in as \(login.username); tally call sends your token to \(connection.endpoint) (stored in \(store.path))")
    }
}

/// `tally logout`: ends the stored login's session and forgets it.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "End the stored login's session (or every session, with --all) and forget its tokens.")

    @Flag(help: "End every session of yours, on every device.")
    var all = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let store = LoginStore.standard
        guard let login = try store.login(for: connection.endpoint) else {
            print("not logged in at \(connection.endpoint)")
            return
        }
        let client = try connection.client()
        if let token = try await connection.send({ try await store.accessToken(for: connection.endpoint, client: client) }) {
            let reply = try await connection.send {
                try await client.call(Envelope(command: "identity.logout", args: ["all_sessions": .bool(all)], token: token))
            }
            if let error = reply.error { FileHandle.standardError.write(Data("tally logout: \(error.message)\n".utf8)) }
        }
        try store.save(nil, for: connection.endpoint)
        print("logged out \(login.username) at \(connection.endpoint)")
    }
}

/// Asks for a password on the terminal without showing what is typed.
enum PasswordPrompt {
    static func ask(_ prompt: String) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            throw ValidationError("no terminal to ask for the password on; pipe it in with --password-stdin")
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
