import Foundation
import TallyCalc
import TallyProtocol
import Testing

/// Runs a calc command as a worker would and returns the result as a client decodes it, so tests
/// see the real JSON keys and strings.
func calc(_ command: String, _ args: JSONValue, locale: String? = nil) throws -> JSONValue {
    let handler = try #require(CalcService().commands.handler(for: command))
    let result = try handler(Arguments(args), RequestContext(command: command, locale: locale))
    return try JSONDecoder().decode(JSONValue.self, from: JSONEncoder.tally.encode(result))
}

/// The error a calc command refuses `args` with, or nil if it succeeds.
func calcError(_ command: String, _ args: JSONValue, locale: String? = nil) -> TallyError? {
    do {
        _ = try calc(command, args, locale: locale)
        return nil
    } catch let error as TallyError {
        return error
    } catch {
        Issue.record("\(command) threw a non-Tally error: \(error)")
        return nil
    }
}

/// A list of strings from a result, such as every person's `total`.
func column(_ rows: JSONValue?, _ key: String) -> [String] {
    (rows?.arrayValue ?? []).compactMap { $0[key]?.stringValue }
}
