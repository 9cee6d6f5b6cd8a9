import Foundation
import TallyCalc
import TallyProtocol
import TallyTesting

private let harness = ServiceHarness(CalcService())

/// Runs a calc command as a worker would and returns the result as a client decodes it, so tests
/// see the real JSON keys and strings.
func calc(_ command: String, _ args: JSONValue, locale: String? = nil) throws -> JSONValue {
    try harness.call(command, args, locale: locale)
}

/// The error a calc command refuses `args` with, or nil if it succeeds.
func calcError(_ command: String, _ args: JSONValue, locale: String? = nil) -> TallyError? {
    harness.error(command, args, locale: locale)
}

/// A list of strings from a result, such as every person's `total`.
func column(_ rows: JSONValue?, _ key: String) -> [String] {
    (rows?.arrayValue ?? []).compactMap { $0[key]?.stringValue }
}
