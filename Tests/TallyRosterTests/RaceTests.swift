import Dispatch
import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// Two people racing for one offer, from two worker processes' stores on one file and two
/// threads: exactly one gets it, the other is told it is no longer offered.
@Suite struct RaceTests {
    /// Runs `first` and `second` on two threads of their own, released together; waits for both.
    private func race(_ first: @escaping @Sendable () -> TallyError?, _ second: @escaping @Sendable () -> TallyError?) -> [TallyError?] {
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let results = Results()
        for (index, body) in [first, second].enumerated() {
            done.enter()
            Thread.detachNewThread {
                start.wait()
                results.set(index, body())
                done.leave()
            }
        }
        start.signal()
        start.signal()
        done.wait()
        return results.values
    }

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Int: TallyError?] = [:]
        func set(_ index: Int, _ value: TallyError?) { lock.withLock { stored[index] = value } }
        var values: [TallyError?] { lock.withLock { [stored[0] ?? nil, stored[1] ?? nil] } }
    }

    @Test(arguments: [true, false]) func exactlyOneTakesAnOffer(approval: Bool) throws {
        let harness = try RosterHarness()
        let team = try harness.team(approval: approval, members: [RosterHarness.bo, RosterHarness.cleo, RosterHarness.eve])
        let date = Day.from(today: 4)
        let shift = try harness.shift(team, on: date, worker: RosterHarness.bo)
        let trade = try harness.offer(shift, on: date, as: RosterHarness.bo)
        let other = try harness.secondService()
        let args: JSONValue = ["trade_id": .integer(trade)]
        let outcomes = race(
            { ServiceHarness(harness.service).error("roster.take", args, caller: RosterHarness.cleo) },
            { ServiceHarness(other).error("roster.take", args, caller: RosterHarness.eve) })
        #expect(outcomes.filter { $0 == nil }.count == 1, "exactly one wins: \(outcomes)")
        let loser = try #require(outcomes.compactMap { $0 }.first)
        #expect(loser.code == .failedPrecondition)
        #expect(loser.message.contains("is \(approval ? "awaiting approval" : "approved"); only a trade that is offered can be taken"))
        let winner = outcomes[0] == nil ? "u-cleo" : "u-eve"
        let state = try harness.call("roster.trade", args, as: RosterHarness.ann)
        #expect(state["trade"]?["to"]?["user_id"]?.stringValue == winner)
        #expect(try harness.events().filter { $0.type == "roster.shift_taken" }.count == 1)
        if !approval { #expect(try harness.worker(team, shift: shift, on: date) == winner) }
    }

    @Test func exactlyOneVolunteerGetsAnOpenShiftWithoutApproval() throws {
        let harness = try RosterHarness()
        let team = try harness.team(approval: false, members: [RosterHarness.bo, RosterHarness.cleo])
        let date = Day.from(today: 4)
        let shift = try harness.shift(team, on: date, worker: nil)
        let other = try harness.secondService()
        let args: JSONValue = ["shift_id": .integer(shift), "date": .string(date)]
        let outcomes = race(
            { ServiceHarness(harness.service).error("roster.volunteer", args, caller: RosterHarness.bo) },
            { ServiceHarness(other).error("roster.volunteer", args, caller: RosterHarness.cleo) })
        #expect(outcomes.filter { $0 == nil }.count == 1, "exactly one wins: \(outcomes)")
        #expect(outcomes.compactMap { $0 }.first?.code == .failedPrecondition)
        let winner = outcomes[0] == nil ? "u-bo" : "u-cleo"
        #expect(try harness.worker(team, shift: shift, on: date) == winner)
        #expect(try harness.count("SELECT COUNT(*) FROM point_entry") == 1)
    }
}
