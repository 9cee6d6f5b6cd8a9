import Foundation
import TallyAuth
import TallyTransportSecurity
import TallyClient
import TallyProtocol
import TallyTesting
import Testing
import ZeroMQ

/// CURVE and ZAP through real processes: who may call, serve, publish and read, and what a
/// process refuses to start with.
@Suite struct CurveTests {
    static let tip: JSONValue = ["amount": "84.00", "tip_percent": "18", "split": 3, "currency": "USD"]

    @Test func anAllowedClientIsAnsweredAndAnUnknownKeyIsRefusedAndLogged() async throws {
        try await TallyStack.with(Options(workers: ["calc": 1], curve: true)) { stack in
            let curve = try #require(stack.curve)
            let reply = try await stack.client().call("calc.tip", Self.tip)
            #expect(reply.isOK, "\(reply)")

            let stranger = try curve.makeKey("stranger", roles: [.client], allow: false)
            await expectNoReply(try stack.client(timeout: .seconds(1), curveKey: "stranger"))
            try await stack.waitUntil("the gateway logs the refused key") {
                stack.gateway.log.contains("refused a CURVE connection") && stack.gateway.log.contains(stranger.publicKey)
            }
            #expect(stack.gateway.log.contains("key not in the allowlist"))
            // A client without CURVE cannot talk to a CURVE gateway at all.
            await expectNoReply(try TallyClient(endpoint: stack.frontend, timeout: .seconds(1), tries: 1, context: stack.context))
            // A worker's key may serve, not call.
            await expectNoReply(try stack.client(timeout: .seconds(1), curveKey: "worker"))
            try await stack.waitUntil("the gateway logs the worker key refused as a client") {
                stack.gateway.log.contains("key worker has roles worker, not client")
            }
        }
    }

    @Test func aClientKeyCannotRegisterAsAWorker() async throws {
        try await TallyStack.with(Options(curve: true)) { stack in
            try stack.startWorker("calc", curveKey: "client")
            try await stack.waitUntil("the gateway refuses the client key on its worker socket") {
                stack.gateway.log.contains("key client has roles client, not worker")
            }
            #expect(try await stack.serviceStatus("calc")?["workers"]?.intValue ?? 0 == 0)
        }
    }

    @Test func aWorkerKeyForCalcCannotServeAccounts() async throws {
        try await TallyStack.with(Options(curve: true)) { stack in
            try #require(stack.curve).makeKey("calc-only", roles: [.worker], services: ["calc"])
            try stack.startWorker("accounts", curveKey: "calc-only")
            try await stack.waitUntil("the gateway refuses the calc key's READY for accounts") {
                stack.gateway.log.contains("refused a worker: its CURVE key may not serve this service")
            }
            #expect(try await stack.serviceStatus("accounts")?["workers"]?.intValue ?? 0 == 0)
            // The same key serves calc.
            try await stack.startWorker("calc", curveKey: "calc-only").waitUntilReady()
            let reply = try await stack.client().call("calc.tip", Self.tip)
            #expect(reply.isOK, "\(reply)")
        }
    }

    @Test func onlyWorkerKeysPublishEventsAndOnlySubscriberKeysReadAlerts() async throws {
        try await TallyStack.with(Options(curve: true)) { stack in
            let curve = try #require(stack.curve)
            let notifier = try await stack.startNotifier()
            let watch = try stack.startWatch(["--since", "0"], token: try stack.annToken())
            // A forged event from a client key: the inlet refuses the handshake, so nothing it
            // publishes arrives. The socket stays open until the refusal is logged.
            let forger = try curve.clientKeys("client", server: "notifier")
            let stopForging = WakeupSignal()
            let forging = Task { [context = stack.context, endpoint = stack.eventsEndpoint] in
                try await DedicatedThread.run(name: "test-forger", stoppingWith: stopForging) {
                    let socket = try ZMQSocket(context: context, type: .pub)
                    defer { socket.close() }
                    try socket.useCurve(forger)
                    try socket.connect(endpoint)
                    let forged = try TallyJSON.encode(priceChanged(1, item: "Forged"))
                    var poller = ZMQPoller()
                    poller.add(fileDescriptor: stopForging.fileDescriptor)
                    while !stopForging.isFired {
                        try socket.send([Data("shopping.price_changed".utf8), forged], dontWait: true)
                        try poller.poll(timeout: .milliseconds(50))
                    }
                }
            }
            try await stack.waitUntil("the notifier refuses the client key on its event inlet") {
                notifier.log.contains("key client has roles client, not worker")
            }
            stopForging.fire()
            try await forging.value
            // A reader of alerts without a subscriber key is refused too.
            let snoop = try stack.startWatch(["--since", "0"], token: try stack.annToken(), curveKey: "client")
            try await stack.waitUntil("the notifier refuses the client key on its alert outlet") {
                notifier.log.contains("key client has roles client, not subscriber")
            }
            await snoop.stop()
            // The worker key's event is taken; the watch (a subscriber key) sees only its alert.
            try await stack.publish([priceChanged(1)])
            try await stack.waitUntil("the watch shows the genuine alert") { !watchedAlerts(watch).isEmpty }
            #expect(watchedAlerts(watch).compactMap { $0["event_id"]?.stringValue } == ["evt-milk-1"])
            let listed = try await stack.client().call("alerts.list", ["after": 0], token: try stack.annToken())
            #expect(listed.result?["alerts"]?.arrayValue?.count == 1, "\(listed)")
        }
    }

    @Test func aSocketAtItsConnectionCapRefusesTheNextHandshakeUntilOneEnds() async throws {
        var options = Options(workers: ["calc": 1], curve: true)
        options.gatewayArguments = ["--max-connections", "2"]
        try await TallyStack.with(options) { stack in
            let keys = try #require(stack.curve).clientKeys("client")
            let ping = Envelope(command: "system.ping").encoded()
            // Three connections of an allowed key, held open on one thread: the first two are
            // answered, the third is refused at its handshake. libzmq does not retry a connection
            // that failed its handshake, so once the first closes, a new one (as a Lazy Pirate
            // client makes for each try) is answered.
            let answered = try await DedicatedThread.run(name: "test-connections") { [context = stack.context, frontend = stack.frontend] in
                func connection() throws -> ZMQSocket {
                    let socket = try ZMQSocket(context: context, type: .dealer)
                    try socket.setLinger(milliseconds: 0)
                    try socket.useCurve(keys)
                    try socket.connect(frontend)
                    try socket.send([Data(), ping])
                    return socket
                }
                func isAnswered(_ socket: ZMQSocket, within timeout: Duration) throws -> Bool {
                    var poller = ZMQPoller()
                    poller.add(socket)
                    try poller.poll(timeout: timeout)
                    return try socket.receive(dontWait: true) != nil
                }
                let clock = ContinuousClock()
                // Generous: under a loaded machine the whole test took 36 s.
                let giveUp = clock.now + .seconds(120)
                // A connection that is answered, trying again on a new one as `tally call` does: a
                // connection that just closed (the stack's own, the first below) holds its place
                // until the gateway's libzmq has seen the close.
                func admitted() throws -> ZMQSocket? {
                    while clock.now < giveUp {
                        let socket = try connection()
                        if try isAnswered(socket, within: .seconds(1)) { return socket }
                        socket.close()
                    }
                    return nil
                }
                var sockets: [ZMQSocket] = []
                defer { for socket in sockets { socket.close() } }
                for held in 1...2 {
                    guard let socket = try admitted() else { return "held connection \(held) was never answered" }
                    sockets.append(socket)
                }
                sockets.append(try connection())
                if try isAnswered(sockets[2], within: .seconds(1)) { return "a third connection was answered past the cap" }
                sockets.removeFirst().close()
                guard let socket = try admitted() else { return "no new connection was answered after the first closed" }
                sockets.append(socket)
                return ""
            }
            #expect(answered.isEmpty, "\(answered)\n\(stack.gateway.log)")
            #expect(stack.gateway.log.contains("refused a connection: too many connections"))
            #expect(stack.gateway.isRunning)
        }
    }

    @Test func aWatchRefusedAtTheNotifiersCapConnectsAgainOnceASubscriberLeaves() async throws {
        try await TallyStack.with(Options(curve: true)) { stack in
            let notifier = try await stack.startNotifier(extraArguments: ["--max-connections", "1"])
            let first = try stack.startWatch(["--since", "0"], token: try stack.annToken())
            try await stack.publish([priceChanged(1)])
            try await stack.waitUntil("the first watch shows the first alert") { !watchedAlerts(first).isEmpty }

            let second = try stack.startWatch(["--since", "0"], token: try stack.annToken())
            try await stack.waitUntil("the notifier refuses the second subscriber at its cap") {
                notifier.log.contains("refused a connection: too many connections")
            }
            // Its stored alerts shown (#1) before the second is made, so that the second can only
            // reach it by connecting again, not in the stored ones.
            try await stack.waitUntil("the second watch shows the stored alerts") { second.log.contains("new alerts follow") }
            #expect(await first.stop())
            try await stack.publish([priceChanged(2)])
            // The second watch hears nothing on its refused connection, connects again after 5 s of
            // silence, and gets the alert published meanwhile.
            try await stack.waitUntil("the second watch connects again and shows the second alert", timeout: .seconds(120)) {
                watchedAlerts(second).contains { $0["event_id"]?.stringValue == "evt-milk-2" }
            }
            #expect(second.log.contains("connecting again"))
            #expect(notifier.isRunning)
        }
    }

    @Test func aKeyAddedToTheAllowlistIsAdmittedAfterSIGHUPAndARemovedOneRefused() async throws {
        try await TallyStack.with(Options(workers: ["calc": 1], curve: true)) { stack in
            let curve = try #require(stack.curve)
            try curve.makeKey("late", roles: [.client], allow: false)
            await expectNoReply(try stack.client(timeout: .seconds(1), curveKey: "late"))
            try curve.allow("late")
            stack.gateway.signal(SIGHUP)
            try await stack.waitUntil("the gateway reloads its allowlist on SIGHUP") {
                stack.gateway.log.contains("reload requested")
            }
            let reply = try await stack.client(curveKey: "late").call("calc.tip", Self.tip)
            #expect(reply.isOK, "\(reply)")
            #expect(stack.gateway.isRunning)

            try FileManager.default.removeItem(atPath: "\(curve.allowed)/late.key")
            stack.gateway.signal(SIGHUP)
            try await stack.waitUntil("the gateway reloads its allowlist without the key") {
                stack.gateway.log.components(separatedBy: "reload requested").count > 2
            }
            await expectNoReply(try stack.client(timeout: .seconds(1), curveKey: "late"))
        }
    }

    @Test func aSecretKeyOthersCanReadIsRefused() async throws {
        let stack = try TallyStack(options: Options(curve: true))
        let curve = try #require(stack.curve)
        let exposed = "\(curve.keys)/exposed.key_secret"
        try FileManager.default.copyItem(atPath: curve.secretFile("gateway"), toPath: exposed)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: exposed)
        let gateway = try stack.launch(
            "gateway", ["gateway", "--frontend", stack.frontend, "--backend", stack.backend, "--curve-key", exposed, "--allow", curve.allowed])
        #expect(await gateway.waitForExit(timeout: .seconds(60)))
        #expect(gateway.exitStatus != 0)
        #expect(gateway.log.contains("can be read by others"), "\(gateway.log)")
        await stack.stop()
    }

    @Test func aNonLoopbackBindWithoutKeysRefusesToStartUnlessInsecure() async throws {
        let stack = try TallyStack()
        let refused = try stack.launch("gateway", ["gateway", "--frontend", "tcp://0.0.0.0:*", "--backend", stack.backend])
        #expect(await refused.waitForExit(timeout: .seconds(60)))
        #expect(refused.exitStatus != 0)
        #expect(refused.log.contains("without CURVE") && refused.log.contains("tally keys generate gateway"), "\(refused.log)")

        let insecure = try stack.launch(
            "gateway", ["gateway", "--frontend", "tcp://0.0.0.0:*", "--backend", stack.backend, "--insecure"])
        try await insecure.waitUntilReady()
        #expect(insecure.log.contains("serving without CURVE beyond loopback"))
        await stack.stop()
    }

    @Test func keysGenerateWritesAZcertPairWithAPrivateSecret() async throws {
        let stack = try TallyStack()
        let directory = "\(stack.directory.path)/made"
        let process = try stack.launch(
            "keys", ["keys", "generate", "calc-worker", "--role", "worker", "--service", "calc", "--dir", directory])
        #expect(await process.waitForExit(timeout: .seconds(60)))
        #expect(process.exitStatus == 0, "\(process.log)")
        let secretMode = try FileManager.default.attributesOfItem(atPath: "\(directory)/calc-worker.key_secret")[.posixPermissions] as? Int
        #expect(secretMode == 0o600)
        let keys = try CurveCertificate.load(secretFile: "\(directory)/calc-worker.key_secret")
        let certificate = try CurveCertificate.load(publicFile: "\(directory)/calc-worker.key")
        #expect(certificate.publicKey == keys.publicKey && certificate.secretKey == nil)
        #expect(certificate.metadata["roles"] == "worker" && certificate.metadata["services"] == "calc")
        await stack.stop()
    }
}

private typealias Options = TallyStack.Options

/// A call that must get no answer: its handshake is refused, so the client gives up.
private func expectNoReply(_ client: TallyClient) async {
    do {
        let reply = try await client.call("calc.tip", CurveTests.tip)
        Issue.record("expected no reply, got \(reply)")
    } catch {
        #expect(error is ClientError, "\(error)")
    }
}
