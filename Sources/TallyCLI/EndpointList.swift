import Foundation
import ArgumentParser

/// Several gateways in one option or environment variable: endpoints separated by commas, such as
/// `tcp://10.0.0.5:5556,tcp://10.0.0.6:5556` (a ZeroMQ endpoint never holds a comma). One endpoint
/// is a list of one, so the single-gateway form reads as before.
enum EndpointList {
    static func parse(_ text: String, option: String) throws -> [String] {
        let endpoints = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard !endpoints.contains(where: \.isEmpty) else {
            throw ValidationError("\(option) has an empty endpoint in '\(text)'; separate endpoints with single commas")
        }
        if let repeated = endpoints.enumerated().first(where: { endpoints[..<$0.offset].contains($0.element) }) {
            throw ValidationError("\(option) lists \(repeated.element) twice")
        }
        return endpoints
    }
}
