import TallyProtocol
import TallyStorage
import TallyWorker

/// The roster service: teams with managers and employees, a weekly schedule in each team's time
/// zone with one-off extra shifts, the shift marketplace (offered, wanted, swaps) with manager
/// approval, points and a leaderboard, hours worked, and an iCalendar feed.
///
/// Every command acts for a signed-in caller, handed to its handler once `AccessControl` admitted
/// them; team roles are the roster's own data, checked here. Every change runs in one
/// transaction of the service's store with its events.
public struct RosterService: StoreBackedService {
    public static let table = CommandTable<RosterStore>("roster") { table in
        // Teams and people.
        table.change("roster.create_team", access: .user, "Start a team, with yourself as its manager.", CreateTeamCommand.run)
        table.change("roster.update_team", access: .user, "Change a team's name, time zone or settings (managers).", UpdateTeamCommand.run)
        table.query("roster.teams", access: .user, "The teams you are in, with your role in each.", TeamsCommand.run)
        table.query("roster.team", access: .user, "One of your teams and its members.", TeamCommand.run)
        table.change("roster.create_invite", access: .user, "A single-use code to join a team (managers).", CreateInviteCommand.run)
        table.change("roster.join", access: .user, "Join a team with an invite code.", JoinCommand.run)
        table.change("roster.set_role", access: .user, "Make a member a manager or an employee (managers).", SetRoleCommand.run)
        table.change("roster.remove_member", access: .user, "Remove a member (managers), or leave a team.", RemoveMemberCommand.run)
        // The schedule.
        table.change("roster.add_shift", access: .user, "Add a weekly or one-off shift (managers).", AddShiftCommand.run)
        table.change("roster.update_shift", access: .user, "Change a shift's position, times, assignee or last day (managers).", UpdateShiftCommand.run)
        table.change("roster.remove_shift", access: .user, "Take a shift off the schedule from its next occurrence (managers).", RemoveShiftCommand.run)
        table.query("roster.schedule", access: .user, "The shifts of a date range: your own, or a whole team's.", ScheduleCommand.run)
        // The marketplace.
        table.change("roster.offer", access: .user, "Offer a shift you work to your colleagues (aangeboden).", OfferCommand.run)
        table.change("roster.take", access: .user, "Take a colleague's offered shift.", TakeCommand.run)
        table.change("roster.undo_take", access: .user, "Take back a take (or a swap's acceptance) before a manager decides.", UndoTakeCommand.run)
        table.change("roster.volunteer", access: .user, "Volunteer for an open shift (gezocht).", VolunteerCommand.run)
        table.change("roster.propose_swap", access: .user, "Propose to swap a shift of yours for a colleague's.", ProposeSwapCommand.run)
        table.change("roster.accept_swap", access: .user, "Agree to a swap a colleague proposed.", AcceptSwapCommand.run)
        table.change("roster.withdraw", access: .user, "Take back an offer, a volunteer or a swap you started.", WithdrawCommand.run)
        table.change("roster.approve", access: .user, "Approve an agreed change (managers).", ApproveCommand.run)
        table.change("roster.decline", access: .user, "Decline a change (managers), or a swap proposed to you.", DeclineCommand.run)
        table.query("roster.market", access: .user, "A team's offered and open shifts, open swaps and changes awaiting approval.", MarketCommand.run)
        table.query("roster.trade", access: .user, "One trade and its history.", GetTradeCommand.run)
        // Work done.
        table.change("roster.record_hours", access: .user, "Record the minutes actually worked on a shift.", RecordHoursCommand.run)
        table.query("roster.hours", access: .user, "Hours worked in a period, per person.", HoursCommand.run)
        table.query("roster.leaderboard", access: .user, "Points per member in a period.", LeaderboardCommand.run)
        table.query("roster.ical", access: .user, "Your shifts as an iCalendar (RFC 5545) feed.", ICalCommand.run)
        table.eventFeed(\.store)
    }

    public let resources: RosterStore

    public init(store: RosterStore) {
        resources = store
    }
}
