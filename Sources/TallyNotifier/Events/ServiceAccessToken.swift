import Foundation
import TallyProtocol

/// How the notifier proves it is a service when it calls `<service>.events` (a `.role("service")`
/// command): it holds a service token, issued by an admin (`tally identity service-token
/// notifier`) and kept in a file on its host, and trades it through the gateway for a short-lived
/// access token (`identity.service_login`), which it keeps until shortly before it expires. No
/// private signing key is needed on the notifier's host, and revoking the service token stops the
/// notifier once its last access token expires.
///
/// Used on the notifier's inlet thread only.
final class ServiceAccessToken {
    private let serviceToken: String
    private var current: (token: String, renewAt: ContinuousClock.Instant)?

    init(serviceToken: String) {
        self.serviceToken = serviceToken
    }

    /// An access token, traded for anew through `call` when there is none or it is about to expire.
    func accessToken(_ call: (_ command: String, _ args: JSONValue) throws -> JSONValue) throws -> String {
        if let current, ContinuousClock.now < current.renewAt { return current.token }
        let result = try call("identity.service_login", ["service_token": .string(serviceToken)])
        guard let token = result["access_token"]?.stringValue, let lifetime = result["expires_in"]?.intValue else {
            throw EventFeedError.malformed("identity.service_login gave no access_token and expires_in")
        }
        // Renew a fifth of the lifetime early (at most a minute), so a token never expires in flight.
        let margin = min(lifetime / 5, 60)
        current = (token, ContinuousClock.now + .seconds(lifetime - margin))
        return token
    }

    /// Drops the access token, after a service refused it: the next call trades for a new one.
    func forget() {
        current = nil
    }
}
