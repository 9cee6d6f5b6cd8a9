import TallyProtocol
import TallyStorage

/// One row of `team`: a store or a restaurant, its time zone and its settings.
struct Team: Sendable {
    let id: Int64
    var name: String
    var timeZone: TeamTimeZone
    var requiresApproval: Bool
    var hoursMarginMinutes: Int
    let createdBy: String
    let createdAt: Int64
    var updatedAt: Int64

    static let nameLength = 60
    static let defaultHoursMargin = 60
    static let hoursMargins = 0...480

    static let columns: SQL = "id, name, time_zone, requires_approval, hours_margin_minutes, created_by, created_at, updated_at"

    init(row: SQLRow) throws {
        let zoneName: String = try row["time_zone"]
        guard let zone = TeamTimeZone(identifier: zoneName) else {
            throw StoredDataFailure("team \(try row["id"] as Int64) has the time zone \(zoneName), which this system does not know")
        }
        id = try row["id"]
        name = try row["name"]
        timeZone = zone
        requiresApproval = try row["requires_approval"]
        hoursMarginMinutes = try row["hours_margin_minutes"]
        createdBy = try row["created_by"]
        createdAt = try row["created_at"]
        updatedAt = try row["updated_at"]
    }

    static func insert(
        _ session: any SQLSession, name: String, timeZone: TeamTimeZone, requiresApproval: Bool, hoursMarginMinutes: Int,
        createdBy: String, at now: Int64
    ) throws -> Team {
        guard let row = try session.fetchOne("""
            INSERT INTO team (name, time_zone, requires_approval, hours_margin_minutes, created_by, created_at, updated_at)
            VALUES (\(name), \(timeZone.identifier), \(requiresApproval), \(hoursMarginMinutes), \(createdBy), \(timestamp: now), \(timestamp: now))
            RETURNING \(columns)
            """)
        else { throw StorageFailure(location: "roster", detail: "INSERT INTO team ... RETURNING gave no row") }
        return try Team(row: row)
    }

    func update(_ session: any SQLSession) throws {
        try session.execute("""
            UPDATE team SET name = \(name), time_zone = \(timeZone.identifier), requires_approval = \(requiresApproval),
                hours_margin_minutes = \(hoursMarginMinutes), updated_at = \(timestamp: updatedAt)
            WHERE id = \(id)
            """)
    }

    static func find(_ session: any SQLSession, id: Int64) throws -> Team? {
        try session.fetchOne("SELECT \(columns) FROM team WHERE id = \(id)").map(Team.init(row:))
    }

    static func all(_ session: any SQLSession, ids: [Int64]) throws -> [Team] {
        guard !ids.isEmpty else { return [] }
        return try session.fetchAll("SELECT \(columns) FROM team WHERE id IN (\(list: ids)) ORDER BY id").map(Team.init(row:))
    }

    /// "team 1 (Corner Store)", for messages.
    var label: String { "team \(id) (\(name))" }

    var ref: TeamRef { TeamRef(id: id, name: name) }

    /// The team on the wire; `role` is the caller's, where the result is for one caller.
    func result(role: Role? = nil) -> TeamResult {
        TeamResult(
            id: id, name: name, timeZone: timeZone.identifier, requiresApproval: requiresApproval,
            hoursMarginMinutes: hoursMarginMinutes, role: role?.rawValue, createdAt: Timestamp.rfc3339(createdAt),
            updatedAt: Timestamp.rfc3339(updatedAt))
    }
}

/// What a member may do in their team.
enum Role: String, Sendable, CaseIterable {
    /// Manages members and the schedule, approves and declines changes, acts for anyone.
    case manager
    /// Works shifts, trades them, records hours.
    case employee
}

/// A team on the wire.
struct TeamResult: Codable, Sendable {
    let id: Int64
    let name: String
    let timeZone: String
    let requiresApproval: Bool
    let hoursMarginMinutes: Int
    /// The caller's role, where the result is for one caller.
    let role: String?
    let createdAt: String
    let updatedAt: String
}

/// A team named inside another result or an event.
struct TeamRef: Codable, Sendable, Equatable {
    let id: Int64
    let name: String
}
