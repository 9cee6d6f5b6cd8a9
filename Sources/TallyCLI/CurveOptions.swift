import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TallyAuth
import TallyTransportSecurity
import UnixSignals
import ZeroMQ

/// This process's own CURVE key pair: what a gateway or notifier serves with, and what every
/// client shows the servers it connects to.
struct CurveKeyOption: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.curveKey.help("""
            This process's CURVE secret key file, NAME.key_secret (mode 0600; make one with tally keys generate NAME).
            """))
    var curveKey: String?

    var secretFile: String? { curveKey ?? EnvironmentDefaults.curveKey.value }

    /// This process's key pair, or nil when none is configured.
    func keys() throws -> CurveKeyPair? {
        try secretFile.map { try CurveCertificate.load(secretFile: $0) }
    }
}

/// The CURVE keys a process uses when it connects: its own key pair, and the public keys of the
/// servers it reaches. Without `--curve-key` every connection is plain text, which only a
/// gateway and notifier on loopback (or run with `--insecure`) accept.
struct CurveOptions: ParsableArguments {
    @OptionGroup var own: CurveKeyOption

    @Option(help: EnvironmentDefaults.gatewayKey.help("The gateway's CURVE public key file, its NAME.key."))
    var gatewayKey: String?

    @Option(help: EnvironmentDefaults.notifierKey.help("The notifier's CURVE public key file (workers publishing events, tally watch)."))
    var notifierKey: String?

    /// Keys to reach the gateway with: nil when neither this process's key nor the gateway's is set.
    func gateway() throws -> CurveClientKeys? {
        try client(serverFile: gatewayKey ?? EnvironmentDefaults.gatewayKey.value, flag: "--gateway-key (\(EnvironmentDefaults.gatewayKey.variable))")
    }

    /// Keys to reach the notifier with: nil when neither this process's key nor the notifier's is set.
    func notifier() throws -> CurveClientKeys? {
        try client(serverFile: notifierKey ?? EnvironmentDefaults.notifierKey.value, flag: "--notifier-key (\(EnvironmentDefaults.notifierKey.variable))")
    }

    private func client(serverFile: String?, flag: String) throws -> CurveClientKeys? {
        switch (own.secretFile, serverFile) {
        case (nil, nil): return nil
        case (nil, _?):
            throw KeyFileError("\(flag) needs this process's own key too: --curve-key NAME.key_secret (TALLY_CURVE_KEY)")
        case (_?, nil):
            throw KeyFileError("with --curve-key, the server's public key is needed too: \(flag)")
        case (let secret?, let server?):
            return try CurveClientKeys.load(secretFile: secret, serverFile: server)
        }
    }
}

/// What a process that binds (the gateway, the notifier) needs to serve CURVE: who may connect,
/// and the explicit choice to serve plain text beyond loopback.
struct ServerCurveOptions: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.curveAllow.help("""
            Directory of CURVE public key files (NAME.key) allowed to connect, each saying its roles (client, worker, \
            subscriber) and a worker's services; read again on change and on SIGHUP. Needed with --curve-key.
            """))
    var allow: String?

    @Flag(help: EnvironmentDefaults.insecure.help("Serve plain text (no CURVE) on endpoints beyond loopback."))
    var insecure = false

    @Option(
        help: EnvironmentDefaults.maximumConnections.help("""
            With CURVE, connections each socket holds at once; the next handshake is refused until one ends.
            """))
    var maxConnections: Int = EnvironmentDefaults.maximumConnections.value

    func validate() throws {
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
    }

    /// The ZAP handler and its allowlist when `keys` is set (and then `--allow` must be); refuses
    /// to go on without keys when an endpoint is not on loopback, unless `--insecure`.
    /// - Parameter connections: a gauge for each socket's live connections, by the ZAP domain it
    ///   serves, which the handler keeps and holds to `--max-connections`.
    func security(
        keys: CurveKeyPair?, binding endpoints: [String], process: String, connections: [String: ConnectionGauge],
        context: ZMQContext, logger: Logger
    ) async throws -> (handler: ZAPHandler, reloader: AllowlistReloader)? {
        guard let keys else {
            let exposed = endpoints.filter { !ServerCurveOptions.isLoopback($0) }
            if exposed.isEmpty { return nil }
            guard insecure || EnvironmentDefaults.insecure.value else {
                throw KeyFileError(
                    """
                    refusing to serve \(exposed.joined(separator: ", ")) without CURVE: anyone who reaches it could call, \
                    register workers or read alerts. Make keys with tally keys generate \(process) --dir KEYS, then run with \
                    --curve-key KEYS/\(process).key_secret --allow ALLOWED_DIR (TALLY_CURVE_KEY, TALLY_CURVE_ALLOW); \
                    or pass --insecure (TALLY_INSECURE=1) to serve plain text on purpose.
                    """)
            }
            logger.warning("serving without CURVE beyond loopback (--insecure)", metadata: ["endpoints": "\(exposed.joined(separator: ","))"])
            return nil
        }
        guard let directory = allow ?? EnvironmentDefaults.curveAllow.value else {
            throw KeyFileError("--curve-key needs --allow DIR (TALLY_CURVE_ALLOW): the public keys allowed to connect")
        }
        guard CurveKeyPair.isAvailable else { throw KeyFileError("this libzmq was built without CURVE") }
        let allowlist = try CurveAllowlist(directory: directory, logger: logger)
        logger.info(
            "serving CURVE",
            metadata: ["public_key": "\(keys.publicKey)", "allow": "\(directory)", "max_connections": .stringConvertible(maxConnections)])
        // SIGHUP is trapped from here on, before the process says it is ready: its default would end it.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let cap = ConnectionCap(maximum: maxConnections, gauges: connections, next: allowlist, logger: logger)
        let handler = try ZAPHandler(context: context, authorizer: cap, connections: connections)
        return (handler, AllowlistReloader(allowlist: allowlist, hangups: hangups))
    }

    /// Whether `endpoint` is reachable only from this host: ipc, inproc, or tcp on a loopback address.
    static func isLoopback(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://") { return true }
        guard endpoint.hasPrefix("tcp://") else { return false }
        var host = endpoint.dropFirst("tcp://".count)
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        host = host.drop { $0 == "[" }.prefix { $0 != "]" }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}

/// Reads the CURVE allowlist again on SIGHUP (it also notices changes by itself at the next handshake).
struct AllowlistReloader: Service {
    let allowlist: CurveAllowlist
    let hangups: UnixSignalsSequence

    func run() async throws {
        await cancelWhenGracefulShutdown { [allowlist, hangups] in
            for await _ in hangups { allowlist.reload() }
        }
    }
}
