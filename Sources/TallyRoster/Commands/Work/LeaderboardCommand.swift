import TallyProtocol
import TallyStorage

/// `roster.leaderboard`: who earned the most points in a team over a period (see `Points`), by the
/// days of the shifts they covered; the current month in the team's calendar unless asked.
enum LeaderboardCommand {
    static let longestRange = 366

    static func run(_ args: Arguments, _ caller: Caller, _ context: RequestContext, _ store: RosterStore) throws -> LeaderboardResult {
        try TeamPeriodQuery.read(args, caller, store, longest: longestRange, defaults: { $0.firstOfMonth...$0.lastOfMonth }) { session, query in
            let (team, dates, people) = (query.team, query.dates, query.people)
            var points: [String: Int] = [:]
            var covered: [String: Int] = [:]
            for member in try Member.active(session, teamID: team.id) { points[member.userID] = 0 }
            for row in try session.fetchAll("""
                SELECT user_id, points FROM point_entry
                WHERE team_id = \(team.id) AND occurrence_date BETWEEN \(dates.lowerBound.description) AND \(dates.upperBound.description)
                """)
            {
                let userID: String = try row["user_id"]
                let entry: Int = try row["points"]
                points[userID, default: 0] += entry
                covered[userID, default: 0] += entry > 0 ? 1 : -1
            }
            let ordered = points.map { (person: people.person($0.key), points: $0.value) }
                .sorted { (-$0.points, $0.person.displayName, $0.person.userID) < (-$1.points, $1.person.displayName, $1.person.userID) }
            // Competition ranking: equal points share a rank, and the next rank skips (1, 2, 2, 4).
            var entries: [LeaderboardEntry] = []
            for (index, entry) in ordered.enumerated() {
                let rank = index > 0 && entries[index - 1].points == entry.points ? entries[index - 1].rank : index + 1
                entries.append(LeaderboardEntry(
                    rank: rank, person: entry.person, points: entry.points, shiftsCovered: covered[entry.person.userID] ?? 0))
            }
            return LeaderboardResult(teamID: team.id, from: dates.lowerBound.description, to: dates.upperBound.description, entries: entries)
        }
    }
}

struct LeaderboardResult: Encodable, Sendable {
    let teamID: Int64
    let from: String
    let to: String
    /// Every member, and anyone else who earned points in the period; most points first.
    let entries: [LeaderboardEntry]
}

/// The person's fields beside the rank and points, in one object.
struct LeaderboardEntry: Encodable, Sendable {
    let rank: Int
    @Inlined var person: PersonResult
    let points: Int
    /// Shifts covered for colleagues or worked when open, less those given away again.
    let shiftsCovered: Int
}
