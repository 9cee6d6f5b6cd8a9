import ArgumentParser
import Foundation
import TallyGateway
import TallyProtocol

struct DescribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Show the services behind the gateway, their commands, and what each takes and returns.",
        discussion: """
            Asks the gateway (system.describe). Without arguments, lists every service and its
            commands; with a service, its commands; with a command, its arguments and result, read
            from the JSON Schemas the gateway serves. --json prints system.describe's result itself,
            schemas included. Exits 1 when there is no such service or command, 2 when no reply came.
            Examples: tally describe; tally describe calc; tally describe calc tip; tally describe calc.tip --json
            """)

    @Argument(help: "A service, such as calc; or a whole command, such as calc.tip.")
    var service: String?

    @Argument(help: "A command of the service, such as tip or calc.tip.")
    var command: String?

    @Flag(help: "Print system.describe's JSON result (with every schema) instead of text.")
    var json = false

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        var args: [String: JSONValue] = [:]
        if let target {
            if let command = target.command { args["command"] = .string(command) } else { args["service"] = .string(target.service) }
        }
        let client = try connection.client(tries: 3)
        let reply = try await connection.send { try await client.call("system.describe", .object(args)) }
        guard let result = reply.result else {
            FileHandle.standardError.write(Data("tally: \(reply.error?.message ?? "the gateway's reply has no result")\n".utf8))
            throw ExitCode(1)
        }
        if json {
            let text = try TallyJSON.encode(result)
            FileHandle.standardOutput.write(isatty(STDOUT_FILENO) == 1 ? JSONIndenter.indent(text) : text)
            FileHandle.standardOutput.write(Data("\n".utf8))
            return
        }
        let description = try TallyJSON.decode(SystemDescription.self, from: result)
        if target?.command != nil, let service = description.services.first, let command = service.commands.first {
            print(DescribeText.command(command), terminator: "")
        } else {
            print(DescribeText.services(description.services), terminator: "")
        }
    }

    /// The service and command asked about: `calc`, `calc tip`, `calc calc.tip` and `calc.tip` all work.
    private var target: (service: String, command: String?)? {
        guard let service else { return nil }
        if service.contains(".") { return (String(Envelope.service(of: service)), service) }
        guard let command else { return (service, nil) }
        return (service, command.contains(".") ? command : "\(service).\(command)")
    }
}

/// `tally describe`'s text: services as tables of commands, and one command's arguments and
/// result as the fields of their schemas.
enum DescribeText {
    static func services(_ services: [SystemDescription.Service]) -> String {
        var out = ""
        for service in services {
            let workers = service.workers.map { ", \($0) worker\($0 == 1 ? "" : "s")" } ?? ", answered by the gateway"
            let source = switch service.describedBy {
            case "catalog": ""
            case "worker": ", described by its workers"
            default: ": its workers did not describe their commands"
            }
            out += "\(service.name)\(workers)\(source)\n"
            let width = service.commands.map(\.name.count).max() ?? 0
            for command in service.commands {
                let name = command.name.padding(toLength: width, withPad: " ", startingAt: 0)
                let kind = command.kind.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
                out += "  \(name)  \(kind)  \(command.accessDescription.padding(toLength: 16, withPad: " ", startingAt: 0))  \(command.summary)\n"
            }
        }
        return out
    }

    static func command(_ command: DescribedCommand) -> String {
        var out = "\(command.name): \(command.summary)\n"
        out += "  \(command.kind == .query ? "a query (safe to send again)" : "a change (send an idempotency_key to retry it safely)"); "
        out += "who may call it: \(command.accessDescription)\n"
        out += fields("Arguments", of: command.argsSchema)
        out += fields("Result", of: command.resultSchema)
        out += "The whole JSON Schemas: tally describe \(command.name) --json\n"
        return out
    }

    /// A schema's top-level properties, one a line: name, type, whether required, description.
    private static func fields(_ title: String, of schema: JSONValue?) -> String {
        guard let schema else { return "\(title): not described\n" }
        guard let properties = schema["properties"]?.objectValue, !properties.isEmpty else {
            return schema["$ref"] != nil || schema["oneOf"] != nil || schema["anyOf"] != nil
                ? "\(title): see the JSON Schema (--json)\n" : "\(title): none\n"
        }
        let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        let width = properties.keys.map(\.count).max() ?? 0
        var out = "\(title):\n"
        for (name, property) in properties.sorted(by: { $0.key < $1.key }) {
            let padded = name.padding(toLength: width, withPad: " ", startingAt: 0)
            let kind = typeName(of: property) + (required.contains(name) ? ", required" : "")
            let about = property["description"]?.stringValue.map { "  \($0)" } ?? ""
            out += "  \(padded)  \(kind)\(about)\n"
        }
        return out
    }

    private static func typeName(of property: JSONValue) -> String {
        if let type = property["type"]?.stringValue { return type }
        if let types = property["type"]?.arrayValue?.compactMap(\.stringValue) { return types.joined(separator: " or ") }
        if let values = property["enum"]?.arrayValue { return "one of " + values.map(\.compactDescription).joined(separator: ", ") }
        if let value = property["const"] { return "always \(value.compactDescription)" }
        // Alternatives, as amounts are written: a decimal string or an integer, or null.
        if let branches = (property["anyOf"] ?? property["oneOf"])?.arrayValue {
            var names: [String] = []
            for name in branches.map(typeName(of:)) where !names.contains(name) { names.append(name) }
            return names.joined(separator: " or ")
        }
        return "see the schema"
    }
}

extension JSONValue {
    /// A scalar as JSON text, for one line of text.
    fileprivate var compactDescription: String {
        (try? TallyJSON.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }
}
