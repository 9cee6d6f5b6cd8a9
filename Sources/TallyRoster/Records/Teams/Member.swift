import TallyProtocol
import TallyStorage

/// One row of `member`: a person in a team, named as their token named them when they joined.
struct Member: Sendable {
    let teamID: Int64
    let userID: String
    let username: String
    var displayName: String
    var role: Role
    let joinedAt: Int64
    var removedAt: Int64?

    static let displayNameLength = 60
    static let columns: SQL = "team_id, user_id, username, display_name, role, joined_at, removed_at"

    init(row: SQLRow) throws {
        teamID = try row["team_id"]
        userID = try row["user_id"]
        username = try row["username"]
        displayName = try row["display_name"]
        let roleName: String = try row["role"]
        guard let role = Role(rawValue: roleName) else {
            throw StoredDataFailure("member \(userID) of team \(teamID) has the unknown role \(roleName)")
        }
        self.role = role
        joinedAt = try row["joined_at"]
        removedAt = try row["removed_at"]
    }

    var isManager: Bool { role == .manager }

    /// Adds `caller` to the team, or brings a member who left back, with `role`.
    static func join(
        _ session: any SQLSession, teamID: Int64, caller: Caller, displayName: String, role: Role, at now: Int64
    ) throws -> Member {
        guard let row = try session.fetchOne("""
            INSERT INTO member (team_id, user_id, username, display_name, role, joined_at, removed_at)
            VALUES (\(teamID), \(caller.userID), \(caller.username), \(displayName), \(role.rawValue), \(timestamp: now), NULL)
            ON CONFLICT (team_id, user_id) DO UPDATE SET
                username = excluded.username, display_name = excluded.display_name, role = excluded.role,
                joined_at = excluded.joined_at, removed_at = NULL
            RETURNING \(columns)
            """)
        else { throw StorageFailure(location: "roster", detail: "INSERT INTO member ... RETURNING gave no row") }
        return try Member(row: row)
    }

    /// The team's member `userID`, if they are in it now.
    static func active(_ session: any SQLSession, teamID: Int64, userID: String) throws -> Member? {
        try session.fetchOne(
            "SELECT \(columns) FROM member WHERE team_id = \(teamID) AND user_id = \(userID) AND removed_at IS NULL"
        ).map(Member.init(row:))
    }

    /// The team's members now, managers first, then by name.
    static func active(_ session: any SQLSession, teamID: Int64) throws -> [Member] {
        try session.fetchAll("SELECT \(columns) FROM member WHERE team_id = \(teamID) AND removed_at IS NULL")
            .map(Member.init(row:))
            .sorted { ($0.role == .manager ? 0 : 1, $0.displayName, $0.userID) < ($1.role == .manager ? 0 : 1, $1.displayName, $1.userID) }
    }

    /// The ids of the teams `userID` is in now.
    static func teamIDs(_ session: any SQLSession, userID: String) throws -> [Int64] {
        try session.fetchValues("SELECT team_id FROM member WHERE user_id = \(userID) AND removed_at IS NULL ORDER BY team_id")
    }

    /// Everyone who has been in the team, by user id: names for history, leavers included.
    static func names(_ session: any SQLSession, teamIDs: [Int64]) throws -> PeopleDirectory {
        guard !teamIDs.isEmpty else { return PeopleDirectory(names: [:]) }
        let rows = try session.fetchAll("SELECT user_id, display_name FROM member WHERE team_id IN (\(list: teamIDs)) ORDER BY joined_at")
        var names: [String: String] = [:]
        for row in rows { names[try row["user_id"]] = try row["display_name"] as String }
        return PeopleDirectory(names: names)
    }

    func updateRole(_ session: any SQLSession) throws {
        try session.execute("UPDATE member SET role = \(role.rawValue) WHERE team_id = \(teamID) AND user_id = \(userID)")
    }

    func markRemoved(_ session: any SQLSession, at now: Int64) throws {
        try session.execute("UPDATE member SET removed_at = \(timestamp: now) WHERE team_id = \(teamID) AND user_id = \(userID)")
    }

    var person: PersonResult { PersonResult(userID: userID, displayName: displayName) }

    func result() -> MemberResult {
        MemberResult(
            userID: userID, username: username, displayName: displayName, role: role.rawValue, joinedAt: Timestamp.rfc3339(joinedAt))
    }
}

/// Display names by user id, for the people a result names.
struct PeopleDirectory: Sendable {
    let names: [String: String]

    /// The person `userID`, by the name they joined with (their id, if the roster never knew them).
    func person(_ userID: String) -> PersonResult {
        PersonResult(userID: userID, displayName: names[userID] ?? userID)
    }

    func person(_ userID: String?) -> PersonResult? { userID.map(person) }

    func name(_ userID: String) -> String { names[userID] ?? userID }
}

/// A member on the wire.
struct MemberResult: Codable, Sendable {
    let userID: String
    let username: String
    let displayName: String
    let role: String
    let joinedAt: String
}

/// A person named in a result: who works a shift, who offered it.
struct PersonResult: Codable, Sendable, Equatable {
    let userID: String
    let displayName: String
}
