import ArgumentParser
import Foundation
import TallyCatalog
import TallyClient
import TallyProtocol

struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Send one command to the gateway and print the reply.",
        discussion: """
            Prints the reply: indented on a terminal, one line when piped. Exits 0 on an ok reply, \
            1 on an error reply, 2 when no reply came after every try.

            Example: tally call calc.tip '{"amount":"84.00","tip_percent":"18","split":3,"currency":"USD"}'
            """)

    @Argument(help: "The command, such as calc.tip or system.services.")
    var command: String

    @Argument(help: "The args as a JSON object, or - to read them from standard input.")
    var args: String = "{}"

    @OptionGroup var connection: ConnectionOptions

    @Option(help: EnvironmentDefaults.callRetries.help("Tries after the first when no reply comes (Lazy Pirate), each to the next gateway listed."))
    var retries: Int = EnvironmentDefaults.callRetries.value

    @Option(help: "Request id, echoed in the reply.")
    var id: String?

    @Option(help: "Locale of the request, such as en_US or ja_JP.")
    var locale: String?

    @Option(help: "Idempotency key; one is generated so that retries never apply a change twice.")
    var idempotencyKey: String?

    @OptionGroup var token: TokenOption

    @Flag(help: "Start a trace: send a new W3C traceparent with the request and print its trace id to standard error.")
    var trace = false

    func validate() throws {
        guard (0...100).contains(retries) else { throw ValidationError("--retries must be from 0 to 100") }
    }

    func run() async throws {
        let text = args == "-" ? String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) : args
        let parsed: JSONValue
        do {
            parsed = try JSONReader.parse(Data(text.utf8))
        } catch {
            throw ValidationError("the args are not valid JSON: \(text)")
        }
        let client = try connection.client(tries: retries + 1)
        let traceparent = trace ? TraceParent.newTrace() : nil
        if let traceparent { FileHandle.standardError.write(Data("trace id: \(traceparent.traceID)\n".utf8)) }
        let frames = try await connection.send {
            let envelope = Envelope(
                id: id, command: command, args: parsed, deadlineMs: connection.deadlineMs,
                idempotencyKey: idempotencyKey ?? UUID().uuidString.lowercased(), token: try await accessToken(), locale: locale,
                traceparent: traceparent?.text)
            return try await client.send(envelope.encoded())
        }
        let body = frames.first ?? Data()
        let terminal = isatty(STDOUT_FILENO) == 1
        FileHandle.standardOutput.write(terminal ? JSONIndenter.indent(body) : body)
        FileHandle.standardOutput.write(Data("\n".utf8))
        guard let reply = try? Reply.decode(body), reply.isOK else {
            if let hint = Self.describeHint(for: (try? Reply.decode(body))?.error, command: command) {
                FileHandle.standardError.write(Data("tally: \(hint)\n".utf8))
            }
            throw ExitCode(1)
        }
    }

    /// Where to look when the args or the command were wrong: `tally describe`.
    static func describeHint(for error: TallyError?, command: String) -> String? {
        guard let error, error.code == .invalidArgument || error.code == .unimplemented, let field = error.field else { return nil }
        if field == "args" || field.hasPrefix("args.") { return "what \(command) takes: tally describe \(command)" }
        if field == "command" { return "the commands there are: tally describe \(Envelope.service(of: command))" }
        return nil
    }

    /// The token to send: --token or TALLY_TOKEN, else the login stored for this endpoint
    /// (refreshed when it has expired). None for a command the catalog says is open to anyone.
    private func accessToken() async throws -> String? {
        if let token = token.token { return token }
        if ServiceCatalog.commands.command(named: command)?.access == .open { return nil }
        return try await LoginStore.standard.accessToken(for: connection.endpoint, client: try connection.client())
    }
}
