import Foundation
import ZeroMQ

/// How a worker process reaches the gateway and how it detects that the gateway is gone.
public struct WorkerConfiguration: Sendable {
    /// The gateways' backends, where workers connect: `tcp://127.0.0.1:5556` by default. With
    /// several, the process registers with every one (`concurrency` MDP workers each), so a
    /// gateway's clients find the service as long as that gateway is up.
    public var backendEndpoints: [String]
    /// Worker threads in this process per gateway, each its own MDP worker with its own socket,
    /// running its requests itself; nil for the service's default (`ServiceHandler.
    /// defaultConcurrency`: one per core, or one for a service whose changes share transactions).
    public var concurrency: Int?
    /// Requests each MDP worker takes at once (Tally's extension of 7/MDP's READY; 1 is plain
    /// 7/MDP). More keep its thread busy between round trips to the gateway; fewer keep a slow
    /// request from delaying others queued behind it on the same thread.
    public var capacity: Int
    /// How often the worker and the gateway heartbeat each other.
    public var heartbeatInterval: Duration
    /// Missed heartbeats before the gateway is taken for gone and the worker reconnects.
    public var liveness: Int
    /// First wait before reconnecting; doubles on each failure up to `maximumReconnectDelay`.
    public var initialReconnectDelay: Duration
    public var maximumReconnectDelay: Duration
    /// Largest request body accepted; larger ones are answered `resource_exhausted`.
    public var maximumMessageBytes: Int
    /// The worker's key pair and the gateway's public key, when the gateway runs CURVE.
    public var curve: CurveClientKeys?

    /// - Parameter backendEndpoints: one or more gateways' backends, each registered with.
    public init(
        backendEndpoints: [String] = ["tcp://127.0.0.1:5556"],
        concurrency: Int? = nil,
        capacity: Int = 16,
        heartbeatInterval: Duration = .milliseconds(2500),
        liveness: Int = 3,
        initialReconnectDelay: Duration = .milliseconds(250),
        maximumReconnectDelay: Duration = .seconds(5),
        maximumMessageBytes: Int = 256 * 1024,
        curve: CurveClientKeys? = nil
    ) {
        self.curve = curve
        self.backendEndpoints = backendEndpoints
        self.concurrency = concurrency
        self.capacity = capacity
        self.heartbeatInterval = heartbeatInterval
        self.liveness = liveness
        self.initialReconnectDelay = initialReconnectDelay
        self.maximumReconnectDelay = maximumReconnectDelay
        self.maximumMessageBytes = maximumMessageBytes
    }
}
