import Foundation
import TallyAuth
import TallyProtocol
import TallyTesting
import Testing

/// Whose data a request reaches is decided by its token, through real processes: accounts,
/// shopping, alerts and roster each answer a caller with that caller's data only, and nobody's
/// without a valid token.
@Suite struct OwnershipThroughGatewayTests {
    /// Ann's things in every service: an account, a shopping list with a price alert, a team
    /// with a shift. Bo has a team of his own.
    private struct AnnsThings {
        let account: JSONValue, list: JSONValue, item: JSONValue, team: Int64, shift: Int64, trade: Int64

        static func make(_ stack: TallyStack, ann: SignedInClient, bo: SignedInClient) async throws -> AnnsThings {
            let account = try #require(try await ann.result("accounts.create", ["name": "Wallet", "starting_balance": "10.00", "currency": "EUR"])["id"])
            var list: JSONValue = .null, item: JSONValue = .null
            for price in ["1.19", "1.29"] {
                list = try #require(try await ann.result("shopping.create_list", ["kind": "shopping", "name": .string(price), "currency": "EUR"])["id"])
                item = try #require(try await ann.result("shopping.add_item", ["list_id": list, "name": "Milk"])["item"]?["id"])
                try await ann.result("shopping.mark_purchased", ["list_id": list, "item_id": item, "unit_price": .string(price)])
            }
            let team = try await RosterTeam.create(by: ann, employees: [])
            let saturday = CalendarDay.next(CalendarDay.saturday, atLeast: 3)
            let shift = try await team.once(on: saturday, worker: ann)
            let trade = try await team.offer(shift, on: saturday, by: ann)
            _ = try await RosterTeam.create("Bo's Bikes", by: bo, employees: [])
            try await stack.waitUntil("Ann's price alert is stored") {
                (try? await ann.call("alerts.list"))?.result?["alerts"]?.arrayValue?.isEmpty == false
            }
            return AnnsThings(account: account, list: list, item: item, team: team.id, shift: shift, trade: trade)
        }

        /// A range of days (at most the 92 `roster.schedule` takes) around Ann's shift.
        static var today: JSONValue { .string(CalendarDay.from(today: 0)) }
        static var inAMonth: JSONValue { .string(CalendarDay.from(today: 30)) }

        /// One request of each kind on Ann's data: reading and changing it.
        var requests: [(String, JSONValue)] {
            [
                ("accounts.get", ["id": account]),
                ("accounts.update", ["id": account, "name": "Mine now"]),
                ("accounts.set_default", ["id": account]),
                ("accounts.delete", ["id": account]),
                ("shopping.get_list", ["list_id": list]),
                ("shopping.rename_list", ["list_id": list, "name": "Mine now"]),
                ("shopping.add_item", ["list_id": list, "name": "Caviar"]),
                ("shopping.mark_unpurchased", ["list_id": list, "item_id": item]),
                ("shopping.delete_list", ["list_id": list]),
                ("roster.team", ["team_id": .integer(team)]),
                ("roster.schedule", ["view": "team", "team_id": .integer(team), "from": Self.today, "to": Self.inAMonth]),
                ("roster.market", ["team_id": .integer(team)]),
                ("roster.trade", ["trade_id": .integer(trade)]),
                ("roster.take", ["trade_id": .integer(trade)]),
                ("roster.withdraw", ["trade_id": .integer(trade)]),
                ("roster.update_shift", ["shift_id": .integer(shift), "position": "Boss"]),
                ("roster.remove_shift", ["shift_id": .integer(shift)]),
                ("roster.create_invite", ["team_id": .integer(team)]),
            ]
        }
    }

    private static let workers = ["identity": 1, "accounts": 1, "shopping": 1, "roster": 1]

    @Test func noCallerCanReadOrChangeAnotherPersonsAccountsListsAlertsOrShifts() async throws {
        try await TallyStack.with(workers: Self.workers) { stack in
            try await stack.startNotifier()
            let ann = try await stack.signedUp("ann"), bo = try await stack.signedUp("bo")
            let things = try await AnnsThings.make(stack, ann: ann, bo: bo)
            let before = try await Self.everything(of: ann, things)

            for (command, args) in things.requests {
                let reply = try await bo.call(command, args)
                #expect(reply.error?.code == .notFound, "\(command) as bo: \(reply)")
            }
            // Bo's lists, accounts and alerts are his own: none of Ann's are among them.
            #expect(try await bo.result("accounts.list")["accounts"] == [])
            #expect(try await bo.result("shopping.lists")["lists"] == [])
            #expect(try await bo.result("shopping.price_history", ["name": "Milk"])["purchases"] == [])
            #expect(try await bo.result("alerts.list", ["after": 0])["alerts"] == [])
            #expect(try await bo.result("roster.teams")["teams"]?.arrayValue?.map { $0["name"] } == ["Bo's Bikes"])
            let window: JSONValue = ["from": AnnsThings.today, "to": AnnsThings.inAMonth]
            #expect(try await ann.result("roster.schedule", window)["occurrences"]?.arrayValue?.isEmpty == false, "Ann's shift is in the window")
            #expect(try await bo.result("roster.schedule", window)["occurrences"] == [])
            // Naming Ann does not help: the owner is the token's, never an argument.
            for command in ["accounts.list", "shopping.lists", "alerts.list"] {
                let named = try await bo.call(command, ["owner": .string(ann.userID)])
                #expect(named.error?.code == .invalidArgument, "\(command): \(named)")
                #expect(named.error?.field == "args.owner")
            }
            let everyone = try await bo.call("alerts.list", ["all_owners": true])
            #expect(everyone.error?.code == .permissionDenied, "\(everyone)")

            #expect(try await Self.everything(of: ann, things) == before, "Ann's data is as she left it")
        }
    }

    /// Another user's token, an expired one, a forged one and none, on each service.
    @Test func anotherUsersAnExpiredAForgedAndNoTokenOnEveryService() async throws {
        try await TallyStack.with(workers: Self.workers) { stack in
            try await stack.startNotifier()
            let ann = try await stack.signedUp("ann"), bo = try await stack.signedUp("bo")
            let things = try await AnnsThings.make(stack, ann: ann, bo: bo)
            let expired = try stack.accessToken(
                for: "ann", userID: ann.userID, issuedAt: Date().addingTimeInterval(-3600), lifetime: .seconds(300))
            let impostor = try TokenSigningKey.generate(id: stack.signingKey.id)
            let forged = try AccessTokenSigner(key: impostor).sign(AccessTokenClaims(
                subject: ann.userID, username: "ann", roles: ["admin"], sessionID: "s", now: Date(), lifetime: .seconds(300)))
            let client = try stack.client(timeout: .seconds(20))

            let reads: [(String, JSONValue)] = [
                ("accounts.get", ["id": things.account]),
                ("shopping.get_list", ["list_id": things.list]),
                ("alerts.list", ["after": 0]),
                ("roster.team", ["team_id": .integer(things.team)]),
            ]
            for (command, args) in reads {
                #expect(try await ann.call(command, args).isOK, "\(command): Ann's own token works")
                let others = try await bo.call(command, args)
                if command == "alerts.list" {
                    #expect(others.result?["alerts"] == [], "alerts.list as bo: \(others)")
                } else {
                    #expect(others.error?.code == .notFound, "\(command) as bo: \(others)")
                }
                for (why, token, words) in [("expired", expired, "expired at"), ("forged", forged, "does not verify")] as [(String, String, String)] {
                    let reply = try await client.call(command, args, token: token)
                    #expect(reply.error?.code == .unauthenticated, "\(command), \(why): \(reply)")
                    #expect(reply.error?.field == "token")
                    #expect(reply.error?.message.contains(words) == true, "\(command), \(why): \(reply)")
                }
                let none = try await client.call(command, args)
                #expect(none.error?.code == .unauthenticated, "\(command), no token: \(none)")
                #expect(none.error?.message == "\(command) needs a signed-in caller: send an access token in the envelope's token (identity.login gives one; tally login stores one for tally call)")
            }
        }
    }

    /// What Ann can see of her own data, to show nothing of it changed.
    private static func everything(of ann: SignedInClient, _ things: AnnsThings) async throws -> [JSONValue] {
        [
            try await ann.result("accounts.list"),
            try await ann.result("shopping.lists"),
            try await ann.result("shopping.get_list", ["list_id": things.list, "include_purchased": true]),
            try await ann.result("roster.team", ["team_id": .integer(things.team)]),
            try await ann.result("roster.trade", ["trade_id": .integer(things.trade)]),
            try await ann.result("alerts.list", ["after": 0]),
        ].map { VaryingTimes.removing(from: $0) }
    }
}

/// Results without the times that move when a list is merely opened (`opened_at`).
enum VaryingTimes {
    static func removing(from value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object): .object(object.filter { $0.key != "opened_at" }.mapValues(removing))
        case .array(let array): .array(array.map(removing))
        default: value
        }
    }
}
