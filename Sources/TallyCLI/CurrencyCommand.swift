import ArgumentParser
import Foundation
import TallyCatalog
import TallyCurrency
import TallyJSON
import TallyMoney
import TallyStorage
import TallyTerminal

/// `tally currency`: the currency service's data, for operators.
struct CurrencyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "currency",
        abstract: "Manage the currency service's data.",
        subcommands: [Load.self, Export.self])

    struct Load: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the currency data with a JSON file, atomically.",
            discussion: """
                The file is checked first (the format of ops/currency-data/currencies.json); a file \
                that does not pass changes nothing. Otherwise its currencies are written beside the \
                active set and then made active in one step: running workers answer from the old set \
                until then and from the new one from their next query on. Workers keep a loaded file \
                across restarts; --embedded goes back to the data built into tally.
                """)

        @Argument(help: "The currency data file (JSON).")
        var file: String?

        @Flag(help: "Load the data built into this tally instead of a file.")
        var embedded = false

        @OptionGroup var dataDirectory: DataDirectoryOption

        @OptionGroup var database: DatabaseOptions

        @Option(help: "How long to wait for a load by another process to finish, in seconds.")
        var waitSeconds: Int = 60

        func validate() throws {
            guard (file != nil) != embedded else {
                throw ValidationError("give a file to load, or --embedded for the data built into tally, not both")
            }
            guard waitSeconds >= 0 else { throw ValidationError("--wait-seconds must not be negative") }
        }

        func run() throws {
            let data: CurrencyData
            let source: CurrencySource
            if let file {
                let bytes: Data
                do {
                    bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                } catch {
                    throw failure("cannot read \(file): \(error.localizedDescription)")
                }
                do {
                    data = try CurrencyData.decode(bytes)
                } catch {
                    throw failure("\(file): \(error.message); nothing was changed")
                }
                source = .file
            } else {
                data = CurrencyData.embedded
                source = .embedded
            }
            let store: CurrencyStore
            do {
                store = try CurrencyStore(engine: try database.location(dataDirectory: dataDirectory.path).engine(for: "currency"))
            } catch {
                throw failure("cannot open the currency database in \((try? database.location(dataDirectory: dataDirectory.path))?.description ?? dataDirectory.path): \(error)")
            }
            // The load runs here, in this process, so its progress is known chunk by chunk
            // without asking the service (which would say the same from the load state).
            let progress = TerminalProgress(label: "loading currencies")
            var loader = CurrencyLoader(store: store)
            loader.onEvent = { event in
                switch event {
                case .waiting(let pid, let host, let loaded, let total):
                    FileHandle.standardError.write(Data(
                        "waiting for pid \(pid) on \(host) to finish loading currency data (\(loaded) of \(total))\n".utf8))
                case .started(_, let total): progress.update(0, total)
                case .loaded(let loaded, let total): progress.update(loaded, total)
                case .tookOver, .switched: break
                }
            }
            let outcome: CurrencyLoader.Outcome
            do {
                outcome = try loader.load(data, source: source, policy: .replace, waitingAtMost: .seconds(waitSeconds))
                progress.finish()
            } catch {
                progress.finish()
                throw failure("loading failed, nothing was changed: \(error)")
            }
            print("loaded \(outcome.count) currencies (data version \(outcome.version)) into \(store.engine.location); running workers answer from them from their next query")
        }

        private func failure(_ message: String) -> ExitCode {
            commandFailure("currency load", message)
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the currency data built into tally, as JSON that `tally currency load` reads.")

        func run() throws {
            FileHandle.standardOutput.write(JSONIndenter.indent(try TallyJSON.encode(CurrencyData.embedded)))
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }
}
