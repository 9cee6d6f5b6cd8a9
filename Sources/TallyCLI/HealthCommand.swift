import ArgumentParser
import Foundation
import TallyObservability
import TallyProtocol

/// `tally health`: one check for systemd, compose and orchestrators, answered by exit code.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Check that a gateway answers (and serves a service) or that a process says it is ready.",
        discussion: """
            Without --ready: sends system.ping to the gateway and, for each --service, asks it \
            (mmi.service) whether that service has a live worker. With --ready HOST:PORT: asks that \
            process's metrics endpoint for GET /ready (add --gateway to check the gateway too). \
            Exit codes: 0 healthy; 1 unhealthy (answered, but a service has no live worker, or \
            /ready said 503); 2 unreachable (no answer in time). One line per check on stdout.

            Example: tally health --service calc --service accounts
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "A service that must have a live worker; repeat for more.")
    var service: [String] = []

    @Option(help: "HOST:PORT of a process's --metrics endpoint whose GET /ready must answer 200.")
    var ready: String?

    @Flag(help: "Check the gateway as well as --ready.")
    var gateway = false

    func validate() throws {
        if let ready, HTTPAddress(ready) == nil { throw ValidationError("--ready must be HOST:PORT, e.g. 127.0.0.1:9464") }
    }

    func run() async throws {
        var worst: Int32 = 0
        if let ready, let address = HTTPAddress(ready) {
            worst = max(worst, await checkReady(address))
        }
        if ready == nil || gateway || !service.isEmpty {
            worst = max(worst, await checkGateway())
        }
        if worst != 0 { throw ExitCode(worst) }
    }

    private func checkReady(_ address: HTTPAddress) async -> Int32 {
        let timeout = Duration.milliseconds(connection.timeoutMs)
        do {
            let response = try await HTTPProbe.get("/ready", from: address, timeout: timeout)
            print("ready \(address): \(response.status)")
            return response.status == 200 ? 0 : 1
        } catch {
            print("ready \(address): unreachable: \(error)")
            return 2
        }
    }

    private func checkGateway() async -> Int32 {
        do {
            let client = try connection.client()
            let ping = try await client.call("system.ping", deadline: nil)
            guard ping.isOK else {
                print("gateway \(connection.endpoint): system.ping failed")
                return 1
            }
            print("gateway \(connection.endpoint): ok")
            var worst: Int32 = 0
            for name in service {
                let answer = try await client.call("mmi.service", .object(["service": .string(name)]))
                let code = answer.result?["code"]?.stringValue
                print("service \(name): \(code == "200" ? "live worker" : "no live worker")")
                if code != "200" { worst = 1 }
            }
            return worst
        } catch {
            print("gateway \(connection.endpoint): unreachable: \(error)")
            return 2
        }
    }
}
