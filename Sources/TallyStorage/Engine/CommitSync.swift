/// What makes one commit durable when its engine returned before the disk had it
/// (`StorageEngine.writeDeferringSync`): `wait()` returns once the commit is on the disk, or
/// throws when it cannot be put there. `done` is a commit that already is (or, under
/// `Durability.process`, never waits to be).
public struct CommitSync: Sendable {
    private let body: (@Sendable () throws -> Void)?

    public init(_ body: @escaping @Sendable () throws -> Void) {
        self.body = body
    }

    private init() { body = nil }

    public static let done = CommitSync()

    public func wait() throws {
        try body?()
    }
}
