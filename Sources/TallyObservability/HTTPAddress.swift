/// A `HOST:PORT` an HTTP endpoint listens on (or a probe connects to): `0.0.0.0:9464`,
/// `127.0.0.1:9464`, `*:9464` (every interface, as in a ZeroMQ endpoint).
public struct HTTPAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    /// Parses `HOST:PORT`, or nil when it is not one (no host, or a port outside 0...65535).
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
            let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        host = String(text[..<colon])
        self.port = port
    }

    public var description: String { "\(host):\(port)" }

    /// The host `MetricsEndpoint` binds: `*` is every interface.
    var bindHost: String { host == "*" ? "0.0.0.0" : host }
}
