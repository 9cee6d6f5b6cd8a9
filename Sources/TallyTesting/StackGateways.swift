import Foundation
import TallyClient

/// More than one gateway: a stack can start extra gateways beside its own, each on ipc endpoints
/// of its own in the stack's directory, for workers registered with several gateways and clients
/// that fail over between them.
extension TallyStack {
    /// A gateway started by `startExtraGateway()`: its process and where clients and workers reach it.
    public struct Gateway: Sendable {
        public let process: TallyProcess
        public let frontend: String
        public let backend: String
    }

    /// Starts another gateway, with the stack's timing, CURVE keys and gateway arguments, and waits
    /// until it is ready. The stack stops it with the rest.
    public func startExtraGateway() async throws -> Gateway {
        let name = "gateway-\(UUID().uuidString.prefix(8).lowercased())"
        let frontend = "ipc://\(directory.path)/\(name)-frontend"
        let backend = "ipc://\(directory.path)/\(name)-backend"
        let process = try launch(
            name,
            ["gateway", "--frontend", frontend, "--backend", backend] + timing + (curve?.gatewayArguments ?? [])
                + options.gatewayArguments)
        try await process.waitUntilReady()
        return Gateway(process: process, frontend: frontend, backend: backend)
    }

    /// A client of several of the stack's gateways (its own is `frontend`), failing over in the order given.
    public func client(
        endpoints: [String], timeout: Duration = .seconds(5), tries: Int = 1, curveKey: String = "client"
    ) throws -> TallyClient {
        try TallyClient(
            endpoints: endpoints, timeout: timeout, tries: tries, curve: try curve?.clientKeys(curveKey), context: context)
    }
}
