import Foundation
import TallyProtocol
import TallyWorker

/// Calls a service's commands in-process, as a worker calls them but without sockets, and gives
/// back results as a client decodes them (real JSON keys and strings): the unit-test counterpart
/// of `TallyStack`, which runs the same service behind a real gateway.
public struct ServiceHarness: Sendable {
    public let service: any ServiceHandler

    public init(_ service: any ServiceHandler) {
        self.service = service
    }

    /// A program's caller with the `service` role, as the notifier's token names it: who may read
    /// a service's event feed (`<service>.events`).
    public static let serviceAccount = Caller(userID: "tally-tests", username: "tally-tests", roles: ["service"])

    /// The result of `command`, encoded and decoded as on the wire. Throws the command's error.
    /// `caller` is who the request comes from, as the authentication middleware would set it from
    /// a token; `AccessControl` checks it as a worker does.
    @discardableResult
    public func call(
        _ command: String, _ args: JSONValue = [:], locale: String? = nil, idempotencyKey: String? = nil, caller: Caller? = nil
    ) throws -> JSONValue {
        guard let handler = service.command(named: command) else {
            throw TallyError(.unimplemented, "\(service.serviceName) has no command \(command)")
        }
        let context = RequestContext(command: command, locale: locale, idempotencyKey: idempotencyKey, caller: caller)
        // Through the same access check as in a worker, with `caller` as the token's.
        let request = Request(command: handler.description, args: try Arguments(args), context: context)
        let result = try AccessControl(authority: service.callerAuthority).respond(to: request) { try handler.run($0.args, $0.context) }
        return try JSONReader.parse(TallyJSON.encode(result))
    }

    /// The error `command` answers `args` with, or nil when it succeeds. An error that is not a
    /// `TallyError` comes back as `internal`, as a worker would answer it.
    public func error(
        _ command: String, _ args: JSONValue = [:], locale: String? = nil, idempotencyKey: String? = nil, caller: Caller? = nil
    ) -> TallyError? {
        do {
            try call(command, args, locale: locale, idempotencyKey: idempotencyKey, caller: caller)
            return nil
        } catch let error as TallyError {
            return error
        } catch {
            return TallyError(.internal, "\(command) threw a non-Tally error: \(error)")
        }
    }
}
