/// What a CURVE key may do, one role per kind of socket. Each server socket's ZAP domain is the
/// role a key needs to connect to it: the gateway's frontend `client`, its backend and the
/// notifier's event inlet `worker`, the notifier's alert outlet `subscriber`.
public enum CurveRole: String, Sendable, CaseIterable {
    case client, worker, subscriber

    /// The ZAP domain of the sockets that require this role.
    public var domain: String { rawValue }
}
