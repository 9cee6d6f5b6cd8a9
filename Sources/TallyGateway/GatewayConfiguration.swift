import TallyProtocol
import TallyTracing
import ZeroMQ

/// Endpoints, timers and limits of the gateway, and the catalog of the commands it serves.
/// `tally gateway` sets the endpoints, timers and limits from flags or environment variables, and
/// the catalog from the services the binary ships; `maximumAttempts` keeps its default there.
public struct GatewayConfiguration: Sendable {
    /// Where clients connect (ROUTER): plain JSON and 7/MDP clients alike.
    public var frontendEndpoint: String
    /// Where workers connect (ROUTER), speaking the 7/MDP worker protocol.
    public var backendEndpoint: String
    public var heartbeatInterval: Duration
    /// Heartbeats a worker may miss before it is taken for dead.
    public var liveness: Int
    /// Requests larger than this are answered `resource_exhausted`.
    public var maximumMessageBytes: Int
    /// A request's deadline when the envelope carries no `deadline_ms`.
    public var defaultDeadline: Duration
    /// How many workers in a row may die holding one request before it is given up on.
    public var maximumAttempts: Int
    /// Requests a service may have waiting for a worker; past it new ones are refused with
    /// `resource_exhausted` at once, so a flood while workers are down cannot exhaust memory.
    public var maximumQueueDepth: Int
    /// Requests one client (one connection) may have accepted and not yet answered, waiting or
    /// running, across all services; past it that client alone is refused with
    /// `resource_exhausted`, so one client flooding a service cannot fill its queue for the others.
    public var maximumClientRequests: Int
    /// Replies the gateway holds for one client whose receive queue is full (it reads slower than it
    /// is answered). Past this many, its new requests are not accepted until it reads again.
    public var maximumHeldReplies: Int
    /// How long a stopping gateway keeps answering the requests it has accepted (while refusing
    /// new ones) before it answers the rest `unavailable`.
    public var drainTimeout: Duration
    /// How long a stopping gateway that owes no reply keeps its client port open after the last
    /// request reached it: a request that arrives until then is answered (`unavailable`, "shutting
    /// down") instead of being left unread in a socket that closes. Within `drainTimeout`.
    public var drainQuietPeriod: Duration
    /// Every command the deployment defines, with its kind: which requests are safe to send to a
    /// second worker, and which services exist before any worker registers (requests for them
    /// wait for a worker instead of failing as unknown).
    public var catalog: CommandCatalog
    /// The JSON Schemas of the catalog's commands, which `system.describe` serves (the `tally`
    /// binary embeds the repository's `schemas/`); empty, it describes the commands without them.
    public var schemas: SchemaLibrary
    /// CURVE on the frontend (ZAP domain `client`) and the backend (domain `worker`), with the
    /// gateway's key pair; nil serves both in plain text. The process's `ZAPHandler` decides who
    /// connects; the broker also checks each worker's READY against the services its key allows.
    public var curve: CurveKeyPair?
    /// Traces each request of Tally's services (a span from its arrival to its answer, passed to
    /// workers that ask for it, 6.1); nil traces nothing.
    public var tracer: TallyTracer?

    public init(
        frontendEndpoint: String = "tcp://127.0.0.1:5555",
        backendEndpoint: String = "tcp://127.0.0.1:5556",
        heartbeatInterval: Duration = .milliseconds(2500),
        liveness: Int = 3,
        maximumMessageBytes: Int = 256 * 1024,
        defaultDeadline: Duration = .seconds(5),
        maximumAttempts: Int = 3,
        maximumQueueDepth: Int = 10_000,
        maximumClientRequests: Int = 1000,
        maximumHeldReplies: Int = 200_000,
        drainTimeout: Duration = .seconds(5),
        drainQuietPeriod: Duration = .milliseconds(100),
        catalog: CommandCatalog = CommandCatalog(CommandCatalog.gateway),
        schemas: SchemaLibrary = SchemaLibrary(),
        curve: CurveKeyPair? = nil,
        tracer: TallyTracer? = nil
    ) {
        self.frontendEndpoint = frontendEndpoint
        self.backendEndpoint = backendEndpoint
        self.heartbeatInterval = heartbeatInterval
        self.liveness = liveness
        self.maximumMessageBytes = maximumMessageBytes
        self.defaultDeadline = defaultDeadline
        self.maximumAttempts = maximumAttempts
        self.maximumQueueDepth = maximumQueueDepth
        self.maximumClientRequests = maximumClientRequests
        self.maximumHeldReplies = maximumHeldReplies
        self.drainTimeout = drainTimeout
        self.drainQuietPeriod = drainQuietPeriod
        self.catalog = catalog
        self.schemas = schemas
        self.curve = curve
        self.tracer = tracer
    }

    /// Silence after which a worker is dead.
    var workerExpiry: Duration { heartbeatInterval * liveness }

    /// Client frames larger than this make libzmq drop the connection before the gateway sees them,
    /// so a huge frame costs no memory; between `maximumMessageBytes` and this, the client gets an answer.
    var hardFrameLimit: Int64 { Int64(max(maximumMessageBytes * 4, 1 << 20)) }

    /// Workers are trusted to answer with what their command returns, which may be larger than any
    /// request; the cap only guards against a runaway peer.
    var workerFrameLimit: Int64 { 64 << 20 }
}
