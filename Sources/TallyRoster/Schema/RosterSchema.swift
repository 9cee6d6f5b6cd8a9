import TallyStorage

/// The tables of the roster service. Steps are append-only: a shipped step never changes, so a
/// later change is a new step.
///
/// Dates of the team's calendar are `YYYY-MM-DD` text (text order is date order in every
/// engine); times of day and lengths are whole minutes; instants are timestamps.
enum RosterSchema {
    static let migrations: [Migration] = [
        Migration("roster-v1") { session in
            try session.create(TableSchema(
                "team",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("name", .text),
                    // An IANA name, checked by the service: the schedule's wall-clock times are in it.
                    ColumnSchema("time_zone", .text),
                    // Whether a take, a volunteer or an accepted swap waits for a manager.
                    ColumnSchema("requires_approval", .bool, default: "TRUE"),
                    // How many minutes past a shift's length hours worked may be recorded.
                    ColumnSchema("hours_margin_minutes", .integer, check: "hours_margin_minutes BETWEEN 0 AND 480"),
                    ColumnSchema("created_by", .text),
                    ColumnSchema("created_at", .timestamp),
                    ColumnSchema("updated_at", .timestamp),
                ]))

            // The people of a team, as their tokens named them when they joined. A member who
            // leaves keeps the row (`removed_at`), so history still has their name.
            try session.create(TableSchema(
                "member",
                columns: [
                    ColumnSchema("team_id", .integer, references: ("team", false)),
                    ColumnSchema("user_id", .text, check: "length(user_id) BETWEEN 1 AND 128"),
                    ColumnSchema("username", .text),
                    ColumnSchema("display_name", .text),
                    ColumnSchema("role", .text, check: "role IN ('manager', 'employee')"),
                    ColumnSchema("joined_at", .timestamp),
                    ColumnSchema("removed_at", .timestamp, notNull: false),
                ],
                primaryKey: ["team_id", "user_id"]))
            try session.createIndex("member_user", on: "member", columns: ["user_id"])

            // Single-use codes a manager hands out; joining with one names the joiner from their token.
            try session.create(TableSchema(
                "invite",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("team_id", .integer, references: ("team", false)),
                    ColumnSchema("code", .text),
                    ColumnSchema("role", .text, check: "role IN ('manager', 'employee')"),
                    ColumnSchema("created_by", .text),
                    ColumnSchema("created_at", .timestamp),
                    ColumnSchema("expires_at", .timestamp),
                    ColumnSchema("used_by", .text, notNull: false),
                    ColumnSchema("used_at", .timestamp, notNull: false),
                ],
                unique: [["code"]]))

            // A shift of the schedule: every week on `weekday` from `starts_on` (until `ends_on`,
            // when set), or once (`starts_on` = `ends_on`). Its start is a wall-clock time in the
            // team's zone; its length is wall-clock minutes (see `Shift.slot`).
            try session.create(TableSchema(
                "shift",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("team_id", .integer, references: ("team", false)),
                    ColumnSchema("repeats", .text, check: "repeats IN ('weekly', 'once')"),
                    ColumnSchema("weekday", .integer, check: "weekday BETWEEN 1 AND 7"),
                    ColumnSchema("start_minute", .integer, check: "start_minute BETWEEN 0 AND 1439"),
                    ColumnSchema("duration_minutes", .integer, check: "duration_minutes BETWEEN 1 AND 1440"),
                    ColumnSchema("position", .text),
                    // Null: an open shift, wanted (gezocht) until someone volunteers.
                    ColumnSchema("assignee_user_id", .text, notNull: false),
                    ColumnSchema("starts_on", .text),
                    ColumnSchema("ends_on", .text, notNull: false),
                    ColumnSchema("created_at", .timestamp),
                    ColumnSchema("updated_at", .timestamp),
                ]))
            try session.createIndex("shift_team", on: "shift", columns: ["team_id"])

            // A change to the roster between people: an offer (aangeboden), a volunteer for an open
            // shift (gezocht) or a swap of two shifts. Its `state` moves only through
            // `TradeStateMachine`, with a conditional UPDATE on the state it comes from.
            try session.create(TableSchema(
                "trade",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("team_id", .integer, references: ("team", false)),
                    ColumnSchema("kind", .text, check: "kind IN ('offer', 'wanted', 'swap')"),
                    ColumnSchema(
                        "state", .text,
                        check: "state IN ('offered', 'requested', 'awaiting_approval', 'approved', 'declined', 'withdrawn', 'expired')"),
                    ColumnSchema("shift_id", .integer, references: ("shift", false)),
                    ColumnSchema("occurrence_date", .text),
                    // A swap's other shift: the one the giver gets in return.
                    ColumnSchema("with_shift_id", .integer, notNull: false, references: ("shift", false)),
                    ColumnSchema("with_date", .text, notNull: false),
                    // Who gives the shift away (null for an open shift), and who gets it.
                    ColumnSchema("from_user_id", .text, notNull: false),
                    ColumnSchema("to_user_id", .text, notNull: false),
                    // The earliest start among its shifts: when it expires, if still open.
                    ColumnSchema("starts_at", .timestamp),
                    ColumnSchema("note", .text, notNull: false),
                    ColumnSchema("created_by", .text),
                    ColumnSchema("created_at", .timestamp),
                    ColumnSchema("updated_at", .timestamp),
                    // When `to_user_id` took, volunteered or accepted: what short notice is measured by.
                    ColumnSchema("claimed_at", .timestamp, notNull: false),
                ]))
            try session.createIndex("trade_team_state", on: "trade", columns: ["team_id", "state"])
            try session.createIndex("trade_state_starts", on: "trade", columns: ["state", "starts_at"])

            // An occurrence is in at most one open trade: each open trade holds a row per
            // occurrence it is about, released when it settles. Taken with INSERT ... ON CONFLICT
            // DO NOTHING, so two requests for one occurrence cannot both get it.
            try session.create(TableSchema(
                "trade_claim",
                columns: [
                    ColumnSchema("shift_id", .integer, references: ("shift", false)),
                    ColumnSchema("occurrence_date", .text),
                    ColumnSchema("trade_id", .integer, references: ("trade", false)),
                ],
                primaryKey: ["shift_id", "occurrence_date"]))
            try session.createIndex("trade_claim_trade", on: "trade_claim", columns: ["trade_id"])

            // Every transition of every trade: who moved it, from what, to what, when.
            try session.create(TableSchema(
                "trade_history",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("trade_id", .integer, references: ("trade", false)),
                    ColumnSchema("action", .text),
                    ColumnSchema("from_state", .text, notNull: false),
                    ColumnSchema("to_state", .text),
                    // Null when the service moved it (expiry).
                    ColumnSchema("by_user_id", .text, notNull: false),
                    ColumnSchema("at", .timestamp),
                ]))
            try session.createIndex("trade_history_trade", on: "trade_history", columns: ["trade_id"])

            // Who works an occurrence when it is not the shift's assignee: written when a trade is
            // approved (or a member leaves). A null assignee makes that one occurrence open.
            try session.create(TableSchema(
                "assignment",
                columns: [
                    ColumnSchema("shift_id", .integer, references: ("shift", false)),
                    ColumnSchema("occurrence_date", .text),
                    ColumnSchema("assignee_user_id", .text, notNull: false),
                    ColumnSchema("trade_id", .integer, notNull: false, references: ("trade", false)),
                ],
                primaryKey: ["shift_id", "occurrence_date"]))
            try session.createIndex("assignment_assignee", on: "assignment", columns: ["assignee_user_id"])

            // The points ledger: one row per award, and a negative row when it is taken back.
            try session.create(TableSchema(
                "point_entry",
                columns: [
                    ColumnSchema("id", .identity),
                    ColumnSchema("team_id", .integer, references: ("team", false)),
                    ColumnSchema("user_id", .text),
                    ColumnSchema("trade_id", .integer, references: ("trade", false)),
                    ColumnSchema("shift_id", .integer, references: ("shift", false)),
                    ColumnSchema("occurrence_date", .text),
                    ColumnSchema("points", .integer),
                    ColumnSchema("reason", .text),
                    ColumnSchema("earned_at", .timestamp),
                ]))
            try session.createIndex("point_entry_team_date", on: "point_entry", columns: ["team_id", "occurrence_date"])
            try session.createIndex("point_entry_user", on: "point_entry", columns: ["user_id", "shift_id", "occurrence_date"])

            // Hours worked on an occurrence, as its worker recorded them; recording again replaces.
            try session.create(TableSchema(
                "hours_record",
                columns: [
                    ColumnSchema("shift_id", .integer, references: ("shift", false)),
                    ColumnSchema("occurrence_date", .text),
                    ColumnSchema("team_id", .integer, references: ("team", false)),
                    ColumnSchema("user_id", .text),
                    ColumnSchema("minutes", .integer, check: "minutes >= 0"),
                    // The occurrence as it was when recorded, so totals survive schedule changes.
                    ColumnSchema("scheduled_minutes", .integer),
                    ColumnSchema("starts_at", .timestamp),
                    ColumnSchema("recorded_by", .text),
                    ColumnSchema("recorded_at", .timestamp),
                ],
                primaryKey: ["shift_id", "occurrence_date"]))
            try session.createIndex("hours_record_team_start", on: "hours_record", columns: ["team_id", "starts_at"])
        }
    ]
}
