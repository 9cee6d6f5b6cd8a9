import TallyProtocol
import TallyStorage

/// Nobody works two shifts at once: the rule checked when a change is asked for and again when it
/// is approved, since the world may have changed in between. It looks at every team the person
/// is in: a shift at the bakery overlaps one at the café just the same.
enum OverlapRule {
    /// Refuses (`failed_precondition`) when `userID`, getting `occurrence` and giving up
    /// `givingUp`, would work two shifts at the same time.
    static func check(
        _ session: any SQLSession, userID: String, gets occurrence: Occurrence, givingUp: Set<OccurrenceKey> = [],
        people: PeopleDirectory
    ) throws {
        let clash = try ScheduleReader.worked(by: [userID], overlapping: occurrence.slot.startsAt, occurrence.slot.endsAt, session)
            .first { $0.key != occurrence.key && !givingUp.contains($0.key) }
        if let clash {
            throw TallyError(
                .failedPrecondition,
                "\(people.name(userID)) already works \(clash.label), which overlaps \(occurrence.label); nobody works two shifts at once")
        }
    }

    /// Of `userIDs`, those with no shift overlapping `occurrence`: who could take it.
    static func free(_ session: any SQLSession, _ userIDs: [String], for occurrence: Occurrence) throws -> [String] {
        let busy = try ScheduleReader.worked(by: Set(userIDs), overlapping: occurrence.slot.startsAt, occurrence.slot.endsAt, session)
            .filter { $0.key != occurrence.key }
            .compactMap(\.assignee)
        return userIDs.filter { !busy.contains($0) }
    }
}
