import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// The settings operators read about, ops/README.md's configuration table and
/// ops/tally.env.example, held to the ones `tally` honours. The one list is the command's own
/// help: every option that falls back on an environment variable says so (`Env: TALLY_...`), and
/// `tally --experimental-dump-help` gives every subcommand's options with their flags. A variable
/// added to the code without a word in its help, or to the help without a row in the table (or
/// the other way round), fails here instead of drifting.
@Suite struct ConfigurationTableTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Set by `tally up` (and tests) for their children, so a child stops when its parent dies;
    /// not a setting.
    static let internalVariables: Set<String> = ["TALLY_PARENT_PID"]

    @Test func theTableListsExactlyTheVariablesTheHelpNamesWithTheirFlags() async throws {
        let help = try await Self.helpVariables()
        #expect(help.count > 30, "\(help.keys.sorted())")

        let table = try Self.configurationTable()
        let listed = Set(table.keys)
        #expect(listed.subtracting(help.keys).isEmpty, "ops/README.md's table lists variables tally does not name: \(listed.subtracting(help.keys).sorted())")
        #expect(Set(help.keys).subtracting(listed).isEmpty, "ops/README.md's table lacks: \(Set(help.keys).subtracting(listed).sorted())")
        for (variable, flags) in table {
            let known = help[variable]?.flags ?? []
            #expect(flags.isSubset(of: known), "\(variable): the table gives \(flags.sorted()), the help \(known.sorted())")
        }
    }

    @Test func everyVariableTheCodeReadsIsNamedInTheHelp() async throws {
        let help = Set(try await Self.helpVariables().keys)
        let read = try Self.variablesReadBySources()
        #expect(read.count > 30, "\(read.sorted())")
        #expect(read.subtracting(help).isEmpty, "read by Sources/TallyCLI, named in no help text: \(read.subtracting(help).sorted())")
        #expect(help.subtracting(read).isEmpty, "named in help, read nowhere in Sources/TallyCLI: \(help.subtracting(read).sorted())")
    }

    /// The example env file is for the processes a host runs (gateway, workers, notifier): it
    /// shows each of their variables, and nothing else.
    @Test func theExampleEnvFileShowsEveryVariableOfTheServingProcesses() async throws {
        let help = try await Self.helpVariables()
        let serving = Set(help.filter { !$0.value.commands.isDisjoint(with: ["tally gateway", "tally worker", "tally notifier"]) }.keys)
        let text = try String(contentsOf: Self.repository.appendingPathComponent("ops/tally.env.example"), encoding: .utf8)
        let shown = Set(text.split(separator: "\n").compactMap { line -> String? in
            let setting = line.drop { $0 == "#" }
            guard setting.hasPrefix("TALLY_"), let equals = setting.firstIndex(of: "=") else { return nil }
            return String(setting[..<equals])
        })
        #expect(shown.subtracting(serving).isEmpty, "tally.env.example shows variables no serving process reads: \(shown.subtracting(serving).sorted())")
        #expect(serving.subtracting(shown).isEmpty, "tally.env.example lacks: \(serving.subtracting(shown).sorted())")
    }

    /// A variable set to what its setting cannot take stops any command before it runs, saying
    /// which variable and what it must be; help is still shown.
    @Test func aVariableItsSettingCannotTakeIsRefusedByName() async throws {
        let stack = try TallyStack(options: TallyStack.Options(database: .sqlite))
        let cases: [(environment: [String: String], message: String)] = [
            (["TALLY_CALL_RETRIES": "many"], "TALLY_CALL_RETRIES must be a whole number; got 'many'"),
            (["TALLY_INSECURE": "yes"], "TALLY_INSECURE must be 1 or 0; got 'yes'"),
            (["TALLY_DURABILITY": "paper"], "TALLY_DURABILITY must be disk or process; got 'paper'"),
        ]
        for (index, refused) in cases.enumerated() {
            let call = try stack.launch("call-\(index)", ["call", "calc.tip", "{}", "--endpoint", "ipc:///nonexistent/frontend"], environment: refused.environment)
            #expect(await call.waitForExit(timeout: .seconds(30)))
            #expect(call.exitStatus == 64, "\(call.log)")
            #expect(call.log.contains(refused.message), "\(call.log)")
        }
        let help = try stack.launch("help", ["call", "--help"], environment: ["TALLY_CALL_RETRIES": "many"])
        #expect(await help.waitForExit(timeout: .seconds(30)))
        #expect(help.exitStatus == 0 && help.log.contains("USAGE: tally call") && help.log.contains("TALLY_CALL_RETRIES"), "\(help.log)")
        await stack.stop()
    }

    /// Each setting in `EnvironmentDefaults` is in its `all`, the list whose values are checked:
    /// one left out would read a mistyped value as its default, unannounced.
    @Test func everySettingIsChecked() throws {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("Sources/TallyCLI/EnvironmentDefaults.swift"), encoding: .utf8)
        let declared = Set(text.matches(of: /static let (\w+) = EnvironmentSetting/).map { String($0.output.1) })
        let list = try #require(text.firstRange(of: /static let all: \[any CheckedSetting\] = \[[^\]]*\]/))
        let listed = Set(text[list].dropFirst("static let all: [any CheckedSetting] = [".count).split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: CharacterSet(charactersIn: "]"))
        }.filter { !$0.isEmpty })
        #expect(declared.count > 30, "\(declared.sorted())")
        #expect(declared == listed, "declared, not in all: \(declared.subtracting(listed).sorted()); in all, not declared: \(listed.subtracting(declared).sorted())")
    }

    // MARK: Support

    /// What the help says of each `TALLY_*` variable: the commands whose help names it, and the
    /// flags of the options whose help names it.
    struct Mentions {
        var commands: Set<String> = []
        var flags: Set<String> = []
    }

    /// Every `TALLY_*` variable named in the help of `tally` and its subcommands, from the
    /// running binary.
    static func helpVariables() async throws -> [String: Mentions] {
        // No database of its own: the help needs none.
        let stack = try TallyStack(options: TallyStack.Options(database: .sqlite))
        let process = try stack.launch("dump-help", ["--experimental-dump-help"])
        let exited = await process.waitForExit(timeout: .seconds(30))
        let output = process.log
        await stack.stop()
        #expect(exited && process.exitStatus == 0, "\(output)")
        let tool = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        var found: [String: Mentions] = [:]
        func visit(_ command: [String: Any], path: String) {
            for variable in variables(in: [command["abstract"], command["discussion"]]) { found[variable, default: Mentions()].commands.insert(path) }
            for argument in command["arguments"] as? [[String: Any]] ?? [] {
                let flags = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                    name["kind"] as? String == "long" ? (name["name"] as? String).map { "--\($0)" } : nil
                }
                for variable in variables(in: [argument["abstract"], argument["discussion"]]) {
                    found[variable, default: Mentions()].commands.insert(path)
                    found[variable, default: Mentions()].flags.formUnion(flags)
                }
            }
            for subcommand in command["subcommands"] as? [[String: Any]] ?? [] {
                visit(subcommand, path: "\(path) \(subcommand["commandName"] as? String ?? "?")")
            }
        }
        let root = try #require(tool["command"] as? [String: Any])
        visit(root, path: root["commandName"] as? String ?? "tally")
        return found
    }

    /// The variables `Sources/TallyCLI` looks up: every string literal that is a whole
    /// `TALLY_*` name (help texts mention them inside longer strings, so they do not count).
    static func variablesReadBySources() throws -> Set<String> {
        let directory = repository.appendingPathComponent("Sources/TallyCLI")
        var names = Set<String>()
        let pattern = try Regex(#""(TALLY_[A-Z_]+)""#)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: pattern) { names.insert(String(text[match.range].dropFirst().dropLast())) }
        }
        return names.subtracting(internalVariables)
    }

    /// ops/README.md's configuration table: each variable with the flags its row gives.
    static func configurationTable() throws -> [String: Set<String>] {
        let text = try String(contentsOf: repository.appendingPathComponent("ops/README.md"), encoding: .utf8)
        let section = try #require(text.firstRange(of: "\n## Configuration\n"))
        let rest = text[section.upperBound...]
        let body = rest[..<(rest.firstRange(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        let flag = try Regex(#"--[a-z][a-z-]*"#)
        var table: [String: Set<String>] = [:]
        for line in body.split(separator: "\n") where line.hasPrefix("| `TALLY_") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let variable = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            #expect(table[variable] == nil, "\(variable) has two rows")
            table[variable] = Set(cells[2].matches(of: flag).map { String(cells[2][$0.range]) })
        }
        return table
    }

    private static func variables(in texts: [Any?]) -> Set<String> {
        var names = Set<String>()
        for case let text as String in texts {
            for match in text.matches(of: /TALLY_[A-Z_]*[A-Z]/) { names.insert(String(match.output)) }
        }
        return names
    }
}
