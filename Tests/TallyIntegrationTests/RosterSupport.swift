import Foundation
import TallyProtocol
import TallyTesting
import Testing

/// A roster team through the gateway, built the way people build one: a manager creates it and
/// hands out invite codes; each person joins with their own token.
struct RosterTeam: Sendable {
    let id: Int64
    let manager: SignedInClient

    /// `manager` starts a team in `zone`, and each of `employees` joins it through an invite.
    static func create(
        _ name: String = "Corner Store", zone: String = "Europe/Amsterdam", approval: Bool = true, by manager: SignedInClient,
        employees: [SignedInClient]
    ) async throws -> RosterTeam {
        let created = try await manager.result(
            "roster.create_team",
            ["name": .string(name), "time_zone": .string(zone), "requires_approval": .bool(approval),
             "display_name": .string(manager.username.capitalized)])
        let team = RosterTeam(id: try #require(created["id"]?.intValue), manager: manager)
        for employee in employees { try await team.join(employee) }
        return team
    }

    func join(_ person: SignedInClient, role: String = "employee") async throws {
        let invite = try await manager.result("roster.create_invite", ["team_id": .integer(id), "role": .string(role)])
        try await person.result("roster.join", ["code": try #require(invite["code"]), "display_name": .string(person.username.capitalized)])
    }

    /// A weekly shift on `weekday` since `from`, worked by `worker`; returns its id.
    @discardableResult
    func weekly(
        _ weekday: String, from: String, start: String = "09:00", end: String = "17:00", position: String = "Cashier",
        worker: SignedInClient?
    ) async throws -> Int64 {
        var args: [String: JSONValue] = [
            "team_id": .integer(id), "weekday": .string(weekday), "from": .string(from), "start": .string(start), "end": .string(end),
            "position": .string(position),
        ]
        if let worker { args["assignee"] = .string(worker.userID) }
        return try #require(try await manager.result("roster.add_shift", .object(args))["id"]?.intValue)
    }

    /// A one-off shift on `date`; returns its id.
    @discardableResult
    func once(
        on date: String, start: String = "09:00", end: String = "17:00", position: String = "Cashier", worker: SignedInClient?
    ) async throws -> Int64 {
        var args: [String: JSONValue] = [
            "team_id": .integer(id), "date": .string(date), "start": .string(start), "end": .string(end), "position": .string(position),
        ]
        if let worker { args["assignee"] = .string(worker.userID) }
        return try #require(try await manager.result("roster.add_shift", .object(args))["id"]?.intValue)
    }

    /// `person` offers their occurrence of `shift` on `date`; returns the trade's id.
    @discardableResult
    func offer(_ shift: Int64, on date: String, by person: SignedInClient) async throws -> Int64 {
        try #require(try await person.result("roster.offer", ["shift_id": .integer(shift), "date": .string(date)])["id"]?.intValue)
    }
}

/// Days of the calendar (UTC), for shifts that must lie in the future or in the past.
enum CalendarDay {
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// `YYYY-MM-DD`, `days` from today.
    static func from(today days: Int) -> String { text(calendar.date(byAdding: .day, value: days, to: Date())!) }

    /// The first `weekday` (1 Sunday ... 7 Saturday) at least `days` from today.
    static func next(_ weekday: Int, atLeast days: Int) -> String {
        let start = calendar.date(byAdding: .day, value: days, to: Date())!
        let ahead = (weekday - calendar.component(.weekday, from: start) + 7) % 7
        return text(calendar.date(byAdding: .day, value: ahead, to: start)!)
    }

    /// The last `weekday` at least `days` ago.
    static func last(_ weekday: Int, atLeast days: Int) -> String {
        let end = calendar.date(byAdding: .day, value: -days, to: Date())!
        let back = (calendar.component(.weekday, from: end) - weekday + 7) % 7
        return text(calendar.date(byAdding: .day, value: -back, to: end)!)
    }

    static let saturday = 7, sunday = 1

    private static func text(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }
}

/// The alerts of `kind` a `tally watch --json` process has shown.
func watched(_ kind: String, _ watch: TallyProcess) -> [JSONValue] {
    watchedAlerts(watch).filter { $0["kind"] == .string(kind) }
}
