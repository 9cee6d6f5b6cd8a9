import ArgumentParser

/// `--frontend`, declared once: the gateway's client endpoint, which `tally gateway` (and
/// `tally up`) binds and the notifier calls for catch-up; `TALLY_GATEWAY_FRONTEND` is its fallback.
struct FrontendOption: ParsableArguments {
    @Option(
        name: .customLong("frontend"),
        help: EnvironmentDefaults.frontend.help("""
            The gateway's client endpoint (ROUTER): the gateway binds it; the notifier calls it for catch-up, and \
            takes several gateways' endpoints separated by commas to fail over between them.
            """))
    var endpoint: String = EnvironmentDefaults.frontend.value
}

/// `--backend`, declared once: the gateway's worker endpoint, which `tally gateway` (and
/// `tally up`) binds and workers and the notifier connect to; `TALLY_GATEWAY_BACKEND` is its fallback.
struct BackendOption: ParsableArguments {
    @Option(
        name: .customLong("backend"),
        help: EnvironmentDefaults.backend.help("""
            The gateway's worker endpoint (ROUTER, 7/MDP workers): the gateway binds it; workers and the notifier \
            connect to it, and take several gateways' endpoints separated by commas to register with every one \
            (a worker with --concurrency threads each).
            """))
    var endpoint: String = EnvironmentDefaults.backend.value
}
