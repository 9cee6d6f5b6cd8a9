import ArgumentParser

/// `--events-endpoint` and `--alerts-endpoint` as the notifier binds them, declared once for
/// `tally notifier` and `tally up`. (A worker's `--events-endpoint` is the other end: it connects,
/// and may list several notifiers' inlets.)
struct NotifierEndpointOptions: ParsableArguments {
    @Option(
        help: EnvironmentDefaults.eventsEndpoint.help("""
            Where the notifier binds the SUB socket workers publish events to: one endpoint (workers may list several \
            notifiers' inlets; give each notifier its own here).
            """))
    var eventsEndpoint: String = EnvironmentDefaults.eventsEndpoint.value

    @Option(help: EnvironmentDefaults.alertsEndpoint.help("Where the notifier binds the PUB socket of alerts and forwarded events (tally watch)."))
    var alertsEndpoint: String = EnvironmentDefaults.alertsEndpoint.value

    func validate() throws {
        guard try EndpointList.parse(eventsEndpoint, option: "--events-endpoint").count == 1 else {
            throw ValidationError(
                "--events-endpoint '\(eventsEndpoint)' lists several endpoints; a notifier binds one (a list is for workers, which publish to every notifier in it): give this notifier its own")
        }
    }

    /// The same settings as flags, for a notifier `tally up` starts.
    var arguments: [String] { ["--events-endpoint", eventsEndpoint, "--alerts-endpoint", alertsEndpoint] }
}
