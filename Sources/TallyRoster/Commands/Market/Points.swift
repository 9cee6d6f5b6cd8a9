import TallyStorage

/// The points a member earns for helping their team, and how they are kept: a ledger of awards
/// (`point_entry`), dated by the shift they are for, that `roster.leaderboard` adds up.
///
/// - Covering a colleague's offered shift, or volunteering for an open one, earns `cover` (10)
///   points once the change is approved: someone stepped in so the shift is worked.
/// - Stepping in at short notice, less than `shortNotice` (24 hours) before the shift starts
///   (measured when they took it or volunteered), earns `shortNoticeBonus` (5) more: those are the
///   hardest shifts to fill.
/// - A swap earns nothing: both sides trade a shift for a shift.
/// - Giving away (offering or swapping) a shift one earned points for covering takes those points
///   back, so taking and re-offering the same shift earns nothing.
enum Points {
    static let cover = 10
    static let shortNoticeBonus = 5
    static let shortNotice: Int64 = 24 * 3600 * 1000

    /// What `trade` earns its receiver once approved.
    static func award(for trade: Trade) -> (points: Int, reason: String)? {
        guard trade.kind != .swap else { return nil }
        let what = trade.kind == .offer ? "covered a colleague's shift" : "worked an open shift"
        if let claimedAt = trade.claimedAt, trade.startsAt - claimedAt < shortNotice {
            return (cover + shortNoticeBonus, "\(what) at short notice")
        }
        return (cover, what)
    }

    static func record(
        _ session: any SQLSession, teamID: Int64, userID: String, trade: Trade, occurrence: OccurrenceKey, points: Int, reason: String,
        at now: Int64
    ) throws {
        try session.execute("""
            INSERT INTO point_entry (team_id, user_id, trade_id, shift_id, occurrence_date, points, reason, earned_at)
            VALUES (\(teamID), \(userID), \(trade.id), \(occurrence.shiftID), \(occurrence.date.description), \(points), \(reason), \(timestamp: now))
            """)
    }

    /// Takes back what `userID` still holds for covering `occurrence`, when they give it away.
    static func revoke(_ session: any SQLSession, teamID: Int64, userID: String, occurrence: OccurrenceKey, trade: Trade, at now: Int64) throws {
        let held = try session.fetchValues("""
            SELECT points FROM point_entry
            WHERE user_id = \(userID) AND shift_id = \(occurrence.shiftID) AND occurrence_date = \(occurrence.date.description)
            """, as: Int.self).reduce(0, +)
        guard held > 0 else { return }
        try record(
            session, teamID: teamID, userID: userID, trade: trade, occurrence: occurrence, points: -held,
            reason: "gave away a shift they had covered", at: now)
    }
}
