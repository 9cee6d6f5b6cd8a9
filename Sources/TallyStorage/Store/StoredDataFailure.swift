/// Stored data a service cannot read: a bug, a hand edit, or something the system has lost since
/// (a time zone), never the client's doing. The worker logs it and answers `internal`; the text
/// names the row, for whoever reads the log.
public struct StoredDataFailure: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
