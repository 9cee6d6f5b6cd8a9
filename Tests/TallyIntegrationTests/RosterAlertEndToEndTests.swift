import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// The roster's alerts reach each person's `tally watch` exactly once, as the price alert does,
/// when the notifier dies and restarts in between, and when the worker that commits the approval
/// dies before it publishes. Every part is a process: a gateway, roster and identity workers (the
/// notifier's catch-up trades its service token there), the notifier, and a watch per person.
@Suite struct RosterAlertEndToEndTests {
    /// Ann manages Corner Store; Bo works a Saturday shift there and offers it; Cleo takes it.
    private struct Story {
        let ann: SignedInClient, bo: SignedInClient, cleo: SignedInClient
        let team: RosterTeam
        let saturday: String
        let trade: Int64
        let watches: [String: TallyProcess]

        static func begin(_ stack: TallyStack, timeout: Duration) async throws -> Story {
            let ann = try stack.signedIn("ann", userID: "2", timeout: timeout), bo = try stack.signedIn("bo", userID: "3", timeout: timeout)
            let cleo = try stack.signedIn("cleo", userID: "4", timeout: timeout)
            var watches: [String: TallyProcess] = [:]
            for person in [ann, bo, cleo] {
                watches[person.username] = try stack.startWatch(["--since", "0"], token: person.token)
            }
            let team = try await RosterTeam.create(by: ann, employees: [bo, cleo])
            let saturday = CalendarDay.next(CalendarDay.saturday, atLeast: 3)
            let shift = try await team.once(on: saturday, worker: bo)
            let trade = try await team.offer(shift, on: saturday, by: bo)
            try await cleo.result("roster.take", ["trade_id": .integer(trade)])
            return Story(ann: ann, bo: bo, cleo: cleo, team: team, saturday: saturday, trade: trade, watches: watches)
        }

        /// Fences after the approval: Cleo offers the Saturday that is hers now (Ann and Bo could
        /// take it), and Bo offers another shift of his (Ann and Cleo could). Alerts are stored and
        /// shown in order, so once every watch shows its fence, a duplicate would be there too.
        func fenceAndCheck(_ stack: TallyStack) async throws {
            try await stack.waitUntil("the approval's alerts reach Bo and Cleo", timeout: .seconds(60)) {
                !watched("shift_approved", watches["bo"]!).isEmpty && !watched("shift_approved", watches["cleo"]!).isEmpty
            }
            let shift = try #require(try await cleo.result("roster.schedule", ["from": .string(saturday), "to": .string(saturday)])["occurrences"]?[0]?["shift_id"]?.intValue)
            try await team.offer(shift, on: saturday, by: cleo)
            let sunday = CalendarDay.next(CalendarDay.sunday, atLeast: 10)
            let other = try await team.once(on: sunday, position: "Bar", worker: bo)
            try await team.offer(other, on: sunday, by: bo)
            // Bo's earlier offer also told Ann and Cleo ("Bo offers ... Cashier"); the fences are the later ones.
            let fences = ["ann": "Bar on Sunday", "bo": "Cleo offers", "cleo": "Bar on Sunday"]
            try await stack.waitUntil("every watch shows its fence", timeout: .seconds(60)) {
                fences.allSatisfy { name, words in
                    watched("shift_offered", watches[name]!).contains { $0["text"]?.stringValue?.contains(words) == true }
                }
            }
            let text = "Shift change approved: Cleo takes Bo's shift Cashier on Saturday \(saturday), 09:00–17:00 at Corner Store"
            for person in [bo, cleo] {
                let alerts = watchedAlerts(watches[person.username]!)
                #expect(watched("shift_approved", watches[person.username]!).map { $0["text"] } == [.string(text)], "\(person.username): \(alerts)\n\(stack.logs)")
                #expect(alerts.allSatisfy { $0["owner"] == .string(person.userID) })
                #expect(sequences(alerts) == sequences(alerts).sorted() && Set(sequences(alerts)).count == alerts.count, "in order, each once")
            }
            let anns = watchedAlerts(watches["ann"]!)
            #expect(watched("approval_requested", watches["ann"]!).count == 1, "\(anns)")
            #expect(watched("shift_approved", watches["ann"]!).isEmpty, "the approver is not told what she did")
            #expect(Set(sequences(anns)).count == anns.count)
        }
    }

    @Test func theApprovalReachesBothWatchesOnceWithTheNotifierKilledAndRestartedInBetween() async throws {
        try await TallyStack.with(workers: ["roster": 1, "identity": 1]) { stack in
            let notifier = try await stack.startNotifier()
            let story = try await Story.begin(stack, timeout: .seconds(10))
            try await stack.waitUntil("Ann is asked to approve") { !watched("approval_requested", story.watches["ann"]!).isEmpty }
            // Approved while no notifier runs: the events' publish reaches nobody.
            await notifier.kill9()
            #expect(try await story.ann.result("roster.approve", ["trade_id": .integer(story.trade)])["state"] == "approved")
            try await stack.startNotifier()
            try await story.fenceAndCheck(stack)
        }
    }

    @Test func theApprovalReachesBothWatchesOnceWithTheWorkerKilledAfterItsCommitBeforeItsPublish() async throws {
        try await TallyStack.with(workers: ["identity": 1]) { stack in
            let first = try stack.startWorker("roster")
            try await first.waitUntilReady()
            try await stack.startNotifier()
            let story = try await Story.begin(stack, timeout: .seconds(20))

            // Swap in a worker that dies right after committing, before publishing or replying.
            #expect(await first.stop())
            let doomed = try stack.startWorker("roster", extraArguments: ["--exit-after-commit"])
            try await stack.waitUntil("only the doomed worker serves roster") {
                (try? await stack.serviceStatus("roster"))?["workers"]?.intValue == 1 && doomed.isRunning
            }
            async let approved = story.ann.call("roster.approve", ["trade_id": .integer(story.trade)], idempotencyKey: "approve-saturday")
            #expect(await doomed.waitForExit(timeout: .seconds(30)), "the worker exits after its commit")
            try stack.startWorker("roster")
            // The key lets the gateway give the approval to the new worker, which answers from the
            // stored result: one approval, its events committed once and never published.
            let reply = try await approved
            #expect(reply.result?["state"] == "approved", "\(reply)")
            try await story.fenceAndCheck(stack)
        }
    }
}
