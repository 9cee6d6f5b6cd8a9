import Foundation
import Logging
import TallyClient
import TallyProtocol
import TallyTracing
import Tracing

/// The notifier's logic, without sockets: handles each event once, notices holes in a source's
/// sequence, and fills them from the source's event feed. Runs on one thread (the inlet's).
///
/// Why it cannot lose an event: a source's watermark (`NotifierStore.watermark`) only moves over
/// sequences actually handled, in the same transaction that handles them. A publish lost to a
/// crash, a notifier that was down, a slow-joining PUB — each leaves the watermark below the
/// service's last sequence, and the next catch-up (on the gap, or periodic) fetches from there.
/// Why a hole is not asked about at once: see `ReorderWindow`; the live events past it are held
/// meanwhile, and handled in order when the hole fills.
///
/// A restored database (`EventEpoch`): its events carry an epoch its source's progress does not
/// count in, and the feed says where that history began; the progress goes back to there
/// (`NotifierStore.switchEpoch`) and the catch-up fetches the rest, so events made after the
/// restore are handled once, though their numbers were handled before in the other history.
///
/// Why it cannot alert twice: in that same transaction an event at or below its source's watermark
/// (in its epoch) is a duplicate, and one past a hole is kept by id until the watermark passes it.
///
/// Several notifiers on one database: each receives every event, one of them stores it (the
/// others find it a duplicate), and each publishes every alert to its own subscribers once, in
/// sequence order. Alerts are numbered from one counter in commit order, so an alert stored by
/// another notifier shows up here as a duplicate event or as a jump in the numbers; then the
/// alerts after `publishedThrough` are read back from the database and published.
public final class EventProcessor {
    public typealias Publish = (_ topic: String, _ body: Data) -> Void

    let store: NotifierStore
    let feed: any EventFeed
    let publish: Publish
    let logger: Logger
    /// Events asked for per catch-up call.
    let pageSize: Int
    /// After a failed catch-up of a source, wait this long (doubling, up to `maximumBackoff`) before asking again.
    let initialBackoff: Duration
    let maximumBackoff: Duration
    /// Services the catalog says have an event feed; checked even before any of their events arrives.
    let catalogSources: [String]
    /// The events past a hole, waiting for the hole's events to arrive live before it is caught up on.
    private var reorderWindow: ReorderWindow

    /// How long a source may stay unreachable before that is worth a warning: at a clean start the
    /// notifier asks before the workers have registered, which is not a problem worth one. An error
    /// that will not pass by itself (a refused token) is warned about at once.
    let patience: Duration

    private let clock = ContinuousClock()
    let metrics: NotifierMetrics
    private var backoff: [String: (until: ContinuousClock.Instant, delay: Duration)] = [:]
    /// Since when each source's catch-up has failed, and whether that has been warned about.
    private var failing: [String: (since: ContinuousClock.Instant, warned: Bool)] = [:]
    /// Every stored alert up to this sequence has been published: from where alerts stood when
    /// the processor was made (those stored before are not published; watchers fetch them), nil
    /// until the database has said.
    private var publishedThrough: Int64?
    /// Per source, a sequence its watermark has reached: read from the database, or moved by
    /// events in sequence that this processor then handled without a failure. Never above the
    /// stored watermark (a source with a failed event is forgotten here and read again), possibly
    /// below it (another notifier on the database moved it), so a hole it shows is checked
    /// against the database before it is caught up on.
    ///
    /// Why: reading the watermark in a transaction of its own for every drain of the inlet was a
    /// fifth of the notifier's time under a steady stream of events.
    private var knownWatermarks: [String: Int64] = [:]
    /// Sources with an event of an epoch their progress does not count in, not handled: each is
    /// caught up on once the batch is handled, which takes up the source's current history.
    private var unfollowedSources: Set<String> = []
    /// Traces the handling of events that carry a `traceparent`; nil traces nothing.
    let tracer: TallyTracer?

    public init(
        store: NotifierStore, feed: any EventFeed, catalogSources: [String], pageSize: Int = 100,
        initialBackoff: Duration = .seconds(1), maximumBackoff: Duration = .seconds(30), patience: Duration = .seconds(15),
        reorderWindow: Duration = EventProcessor.defaultReorderWindow, logger: Logger, tracer: TallyTracer? = nil,
        publish: @escaping Publish
    ) {
        self.reorderWindow = ReorderWindow(length: reorderWindow)
        self.store = store
        self.feed = feed
        self.catalogSources = catalogSources
        self.pageSize = pageSize
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.patience = patience
        self.logger = logger
        self.publish = publish
        self.tracer = tracer
        metrics = NotifierMetrics(sources: catalogSources)
        publishedThrough = try? store.lastAlertSequence()
    }

    /// How long a hole in a source's sequence waits for its events to arrive live: two worker
    /// processes' publishes of one service pass each other by milliseconds.
    public static let defaultReorderWindow: Duration = .milliseconds(250)

    /// Takes one event from the inlet (see `receive(_:)` for a batch).
    public func receive(_ event: CloudEvent) {
        receive([event])
    }

    /// Takes the events one wake-up of the inlet found: handles them in one transaction
    /// (`NotifierStore.handle(_:)`), in sequence order per source. An event showing a hole before
    /// it (in its source's sequence, counting the events ahead of it in this batch) is held for
    /// the reorder window (`ReorderWindow`) and handled once the hole fills; a hole still open
    /// after the window is caught up on (`catchUpOnOverdueHoles`). An event of an epoch its
    /// source's progress does not count in is not handled; its source is caught up on after the
    /// batch, which moves the progress to the epoch the source's database is in and fetches the event.
    public func receive(_ events: [CloudEvent]) {
        let now = clock.now
        var batch: [CloudEvent] = []
        // Per source: the sequence up to which every event is handled or in `batch`.
        var through: [String: Int64] = [:]
        // Sources with an event that could not be stored: their watermark is read again next time.
        var failed: Set<String> = []
        for event in events {
            let source = event.service
            metrics.sourceHas(source, sequence: event.sequence)
            if through[source] == nil { through[source] = knownWatermark(of: source, refresh: false) }
            guard let handled = through[source] else {
                // The database did not answer: handling it will say what is wrong.
                batch.append(event)
                continue
            }
            if event.sequence > handled + 1 {
                reorderWindow.hold(event, of: source, at: now)
                continue
            }
            batch.append(event)
            if event.sequence == handled + 1 {
                through[source] = event.sequence
                // What waited for it.
                for next in reorderWindow.release(source, after: event.sequence) {
                    batch.append(next)
                    through[source] = max(through[source] ?? next.sequence, next.sequence)
                }
            }
        }
        failed.formUnion(handle(batch))
        for (source, sequence) in through { knownWatermarks[source] = failed.contains(source) ? nil : sequence }
        // Not forced: while the feed is unreachable, every batch of the new epoch would ask again.
        for source in unfollowedSources.sorted() { catchUp(source, force: false) }
        unfollowedSources = []
        catchUpOnOverdueHoles(at: now)
    }

    /// When the next held event's reorder window ends (see `catchUpOnOverdueHoles`); nil with none held.
    public var nextHoleDue: ContinuousClock.Instant? { reorderWindow.nextDue }

    /// For each source with an event held past its reorder window: handles the held events the
    /// database shows no hole before (another notifier on it handled the missing ones), and if a
    /// hole is left, catches up once, then handles what is still held: duplicates if the catch-up
    /// fetched them, else out of order, as the feed cannot be asked now.
    public func catchUpOnOverdueHoles(at now: ContinuousClock.Instant = ContinuousClock.now) {
        for source in reorderWindow.overdue(at: now) {
            if let watermark = knownWatermark(of: source, refresh: true) {
                handle(reorderWindow.release(source, after: watermark))
            }
            knownWatermarks[source] = nil
            guard reorderWindow.overdue(at: now).contains(source) else { continue }
            logger.debug("hole in events outlasted the reorder window; catching up", metadata: ["source": "\(source)"])
            catchUp(source, force: true)
            handle(reorderWindow.releaseAll(source))
            knownWatermarks[source] = nil
        }
    }

    /// `knownWatermarks`' entry for `source`, read from the database when there is none or when
    /// `refresh` says so; nil if the database did not answer.
    private func knownWatermark(of source: String, refresh: Bool) -> Int64? {
        if !refresh, let known = knownWatermarks[source] { return known }
        let stored = try? store.watermark(of: source)
        knownWatermarks[source] = stored
        return stored
    }

    /// Asks every source for events after its watermark: the catalog's event feeds and every source seen.
    public func checkAllSources() {
        let seen = (try? store.knownSources()) ?? []
        for source in Set(catalogSources + seen).sorted() { catchUp(source, force: false) }
    }

    /// Fetches and handles `source`'s events after its watermark until there are no more.
    /// Returns whether the feed answered. A source that failed is left alone for a backoff, unless `force`.
    @discardableResult
    public func catchUp(_ source: String, force: Bool) -> Bool {
        if !force, let wait = backoff[source], clock.now < wait.until { return false }
        do {
            var after = try store.watermark(of: source)
            var epoch = try store.epoch(of: source)
            while true {
                metrics.catchUpCall(source)
                let page = try feed.events(service: source, after: after, limit: pageSize)
                if let newEpoch = page.epoch, newEpoch != epoch {
                    // The source's database was restored (or made anew): a history not followed yet.
                    let began = page.epochBeganAfter ?? 0
                    after = try store.switchEpoch(of: source, to: newEpoch, beganAfter: began)
                    logger.info(
                        "source's events are a new history (its database was restored or made anew); catching up from where it began",
                        metadata: ["source": "\(source)", "epoch": "\(newEpoch)", "began_after": "\(began)", "handled_through": "\(after)"])
                    epoch = newEpoch
                    knownWatermarks[source] = nil
                    metrics.historyBegan(source, sequence: after)
                    continue
                }
                metrics.sourceHas(source, sequence: page.lastSequence)
                // Written only when there is something to catch up on, so the periodic check of
                // a source with nothing new writes nothing.
                if page.lastSequence > after { try store.sourceHas(source, upTo: page.lastSequence) }
                handle(page.events.sorted(by: { $0.sequence < $1.sequence }))
                guard let last = page.events.map(\.sequence).max(), last > after, last < page.lastSequence else { break }
                after = last
            }
            backoff[source] = nil
            if failing.removeValue(forKey: source)?.warned == true {
                logger.info("caught up on events again", metadata: ["source": "\(source)"])
            }
            return true
        } catch {
            let delay = backoff[source].map { min($0.delay * 2, maximumBackoff) } ?? initialBackoff
            backoff[source] = (clock.now + delay, delay)
            // Warned once, when the source has been unreachable longer than a start takes.
            let since = failing[source]?.since ?? clock.now
            let isTransient = (error as? EventFeedError)?.isTransient ?? false
            let warn = failing[source]?.warned != true && (!isTransient || clock.now - since >= patience)
            failing[source] = (since, failing[source]?.warned == true || warn)
            logger.log(
                level: warn ? .warning : .debug, "could not catch up on events",
                metadata: ["source": "\(source)", "error": "\(error)", "retry_in": "\(delay)",
                           "failing_for": "\(clock.now - since)"])
            return false
        }
    }

    /// Handles events exactly once (in one transaction), then forwards each and publishes its
    /// alerts; publishes the alerts another notifier on the same database stored meanwhile too.
    /// Returns the sources of the events that were not stored (could not be, or of another epoch).
    @discardableResult
    func handle(_ events: [CloudEvent]) -> Set<String> {
        guard !events.isEmpty else { return [] }
        var failed: Set<String> = []
        if publishedThrough == nil { publishedThrough = try? store.lastAlertSequence() }
        // Whether alerts may be stored that this notifier has not published: a duplicate's (if
        // another notifier handled it), or those between the last published and this batch's.
        var storedElsewhere = false
        // Each traced event's handling is a span, a child of the span that recorded the event,
        // open from before its transaction to after its alerts are published.
        let spans: [(any Span)?]? = tracer.map { tracer in
            events.map { event in event.traceparent == nil ? nil : eventSpan(event, tracer) }
        }
        defer { spans?.forEach { $0?.end() } }
        for (index, (event, result)) in zip(events, store.handle(events)).enumerated() {
            let span = spans?[index]
            span?.attributes["tally.outcome"] = result.outcome
            switch result {
            case .success(.duplicate):
                storedElsewhere = true
                logger.debug("duplicate event ignored", metadata: ["id": "\(event.id)", "type": "\(event.type)"])
            case .success(.otherEpoch):
                // A catch-up takes up the new history and fetches it; an old history's event is not the source's any more.
                unfollowedSources.insert(event.service)
                failed.insert(event.service)
                knownWatermarks[event.service] = nil
                logger.debug(
                    "event of another epoch not handled",
                    metadata: ["id": "\(event.id)", "epoch": "\(event.epoch ?? "")", "sequence": "\(event.sequence)"])
            case .success(.handled(let alerts)):
                metrics.handled(event.service, sequence: event.sequence, time: event.time)
                publish(NotifierTopic.event(event.type), event.encoded())
                // The request that caused the event, so its log lines join the gateway's and the worker's.
                let requestID = event.requestID ?? ""
                logger.debug(
                    "event handled",
                    metadata: ["request_id": "\(requestID)", "type": "\(event.type)", "sequence": "\(event.sequence)", "alerts": "\(alerts.count)"])
                for alert in alerts {
                    if let span, let tracer { alertSpan(alert, parent: span, tracer) }
                    metrics.alert(kind: alert.kind)
                    logger.info(
                        "alert",
                        metadata: ["sequence": "\(alert.sequence)", "kind": "\(alert.kind)", "owner": "\(alert.owner)", "request_id": "\(requestID)"])
                    // After a jump, this alert and the rest come from the database, in order.
                    if let through = publishedThrough, storedElsewhere || alert.sequence != through + 1 {
                        storedElsewhere = true
                        continue
                    }
                    publish(alert.topic, alert.encoded())
                    publishedThrough = alert.sequence
                }
            case .failure(let error):
                // Not handled, so the watermark did not move: the next catch-up brings the event back.
                failed.insert(event.service)
                knownWatermarks[event.service] = nil
                logger.error("could not record event", metadata: ["id": "\(event.id)", "error": "\(error)"])
            }
        }
        if storedElsewhere { publishStoredAlerts() }
        return failed
    }

    /// The span of one event's handling, after OpenTelemetry's messaging conventions: a consumer
    /// that processes a message from a ZeroMQ subscription, named by the event's type.
    private func eventSpan(_ event: CloudEvent, _ tracer: TallyTracer) -> any Span {
        let span = tracer.startSpan("process \(event.type)", kind: .consumer, traceparent: event.traceparent)
        span.updateAttributes { attributes in
            attributes["messaging.system"] = "zeromq"
            attributes["messaging.operation.type"] = "process"
            attributes["messaging.destination.name"] = event.type
            attributes["messaging.message.id"] = event.id
            attributes["cloudevents.event_id"] = event.id
            attributes["cloudevents.event_source"] = event.source
            attributes["cloudevents.event_type"] = event.type
            attributes["tally.event.sequence"] = event.sequence
            if let requestID = event.requestID { attributes["tally.request_id"] = requestID }
        }
        return span
    }

    /// The span of an alert the event made, a child of the event's: its number and kind (not its
    /// owner, who is a person).
    private func alertSpan(_ alert: Alert, parent: any Span, _ tracer: TallyTracer) {
        let span = tracer.startSpan("create alert.\(alert.kind)", kind: .producer, parent: parent)
        span.updateAttributes { attributes in
            attributes["messaging.system"] = "zeromq"
            attributes["messaging.operation.type"] = "create"
            attributes["tally.alert.sequence"] = alert.sequence
            attributes["tally.alert.kind"] = alert.kind
        }
        span.end()
    }

    /// The highest alert sequence stored, for the heartbeat, once the alerts stored since the last
    /// look by other notifiers on the same database are published; nil if the database did not answer.
    public func lastAlertSequence() -> Int64? {
        guard let last = try? store.lastAlertSequence() else { return nil }
        guard let through = publishedThrough else {
            publishedThrough = last
            return last
        }
        if last != through { publishStoredAlerts() }
        return max(last, publishedThrough ?? last)
    }

    /// Publishes the stored alerts after `publishedThrough`, in sequence order.
    private func publishStoredAlerts() {
        guard var through = publishedThrough else { return }
        defer { publishedThrough = through }
        do {
            while true {
                let page = try store.alerts(after: through, limit: 500)
                // A database replaced by an older one numbers on from its own last alert.
                if page.lastSequence < through {
                    through = page.lastSequence
                    return
                }
                for alert in page.alerts {
                    publish(alert.topic, alert.encoded())
                    through = alert.sequence
                }
                if !page.more { return }
            }
        } catch {
            // Published later (the next batch or heartbeat); watchers fetch what they miss meanwhile.
            logger.warning("could not read stored alerts to publish", metadata: ["after": "\(through)", "error": "\(error)"])
        }
    }
}

extension Result<NotifierStore.Outcome, any Error> {
    /// What became of an event, for its span: `handled`, `duplicate`, `other_epoch` or `failed`.
    fileprivate var outcome: String {
        switch self {
        case .success(.handled): "handled"
        case .success(.duplicate): "duplicate"
        case .success(.otherEpoch): "other_epoch"
        case .failure: "failed"
        }
    }
}
