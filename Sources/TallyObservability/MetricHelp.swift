/// What each of Tally's metrics measures, the `# HELP` line `/metrics` gives it. Instrumented code
/// names its metrics through swift-metrics, which has no place for a description, so the
/// descriptions live here, one line each, as ops/README.md's Metrics table says them.
/// `MetricsThroughProcessesTests` fails when a process exports a metric without one.
enum MetricHelp {
    static let texts: [String: String] = [
        "tally_gateway_requests_total":
            "Requests the gateway answered, by outcome: ok, error (the worker answered an error) or the code the gateway answered itself.",
        "tally_gateway_request_duration_seconds": "Time from accepting a request to answering it, at the gateway.",
        "tally_gateway_queue_depth": "Requests waiting for a worker of the service.",
        "tally_gateway_live_workers": "MDP workers (threads) of the service registered with the gateway.",
        "tally_gateway_redispatches_total": "Requests sent to a second worker after the first one left.",
        "tally_gateway_deadline_expiries_total":
            "Requests answered at their deadline (deadline_exceeded, or unavailable when no worker came).",
        "tally_worker_requests_total": "Replies the worker sent, by code (ok or the error code).",
        "tally_worker_request_duration_seconds": "Time from receiving a request's body to encoding its reply, at the worker.",
        "tally_store_commit_duration_seconds": "Time one write transaction (a group-commit batch) took.",
        "tally_store_batch_size": "Changes per write transaction.",
        "tally_store_busy_total": "Transactions that failed because another writer held the database past the busy timeout.",
        "tally_store_conflicts_total": "Transactions the database aborted for a conflict with another writer and that were run again.",
        "tally_events_published_total": "Domain events handed to the publisher after their commit.",
        "tally_events_pending": "Events committed and not yet handed to the publishing socket.",
        "tally_events_dropped_total":
            "Events dropped because the publisher's queue was full; the notifier fetches them from the service's outbox.",
        "tally_notifier_lag_events":
            "Events a source is known to have that the notifier had not handled, as of the last one handled.",
        "tally_notifier_events_handled_total": "Events the notifier handled (each once).",
        "tally_notifier_catch_up_calls_total": "Calls the notifier made to a service's event feed to fetch events it missed.",
        "tally_notifier_event_delay_seconds": "Time from an event's commit (its time) to the notifier handling it.",
        "tally_notifier_subscriber_connections": "Connections to the notifier's alert outlet, handshakes included.",
        "tally_notifier_alerts_total": "Alerts the notifier produced, by kind.",
    ]
}
