import TallyProtocol

/// What became of one request, as the worker answered it: handed to every middleware's
/// `RequestMiddleware.answered(_:)` once its reply is final. Whatever arrived is described, even
/// a request that could not be read (then `command` is nil, and `id` too unless the frame's head
/// still named one).
///
/// Plain values only, copied from what the processor already holds, so making one allocates
/// nothing: it is made for every request, on the hot path.
public struct AnsweredRequest: Sendable {
    /// The envelope's `id`, when the request had one that could be read.
    public let id: String?
    /// The command the envelope named (known to the service or not); nil when the request could
    /// not be read (bad frames, too big, not an envelope).
    public let command: String?
    /// The reply's error code; nil for a success.
    public let error: ErrorCode?
    /// From the request's body received to its reply encoded; for requests that arrived together,
    /// from when the batch was received, so a change's time includes the commit it waited for.
    public let elapsed: Duration

    public init(id: String?, command: String?, error: ErrorCode?, elapsed: Duration) {
        self.id = id
        self.command = command
        self.error = error
        self.elapsed = elapsed
    }
}
