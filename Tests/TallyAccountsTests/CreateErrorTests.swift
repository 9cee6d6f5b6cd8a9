import Foundation
import TallyProtocol
import Testing

@Suite struct CreateErrorTests {
    private let english = "Please enter both an account name and a starting balance."
    private let japanese = "口座名と初期残高の両方を入力してください。"
    private let chinese = "请填写账户名称和初始余额。"

    private func create(_ harness: AccountsHarness, _ args: [String: JSONValue], locale: String? = "en_US") -> TallyError? {
        var full: [String: JSONValue] = ["name": "Wallet", "starting_balance": "10.00", "currency": "USD"]
        for (key, value) in args { full[key] = value }
        return harness.error("accounts.create", .object(full), locale: locale)
    }

    @Test func aMissingOrBlankNameOrBalanceGetsTheWordListsMessage() throws {
        let harness = try AccountsHarness()
        for (args, field) in [
            (["name": JSONValue.null], "args.name"), (["name": ""], "args.name"), (["name": " \n\t "], "args.name"),
            (["starting_balance": .null], "args.starting_balance"), (["starting_balance": ""], "args.starting_balance"),
            (["starting_balance": "   "], "args.starting_balance"),
            // Both empty: the name is reported first, as the screen reads top to bottom.
            (["name": "", "starting_balance": ""], "args.name"),
        ] as [([String: JSONValue], String)] {
            let error = create(harness, args)
            #expect(error == TallyError(.invalidArgument, english, field: field), "\(args)")
        }
        #expect(try harness.count() == 0)
    }

    @Test func theEmptyFieldMessageFollowsTheRequestsLocale() throws {
        let harness = try AccountsHarness()
        let cases: [(String?, String)] = [
            ("en_US", english), ("en-GB", english), (nil, english), ("fr_FR", english), ("de", english),
            ("ja_JP", japanese), ("ja", japanese), ("ja-JP", japanese),
            ("zh-Hans-CN", chinese), ("zh_CN", chinese), ("zh", chinese), ("zh-Hant-TW", chinese),
        ]
        for (locale, message) in cases {
            #expect(create(harness, ["name": ""], locale: locale)?.message == message, "\(locale ?? "no locale")")
            #expect(create(harness, ["starting_balance": ""], locale: locale)?.field == "args.starting_balance")
        }
    }

    @Test func theEmptyFieldMessageIsReadFromTheStoredWordList() throws {
        let harness = try AccountsHarness()
        try harness.execute("UPDATE localized_string SET text = 'Name und Betrag fehlen' WHERE language = 'en' AND key = 'ERRORLABEL_NAME_CURRENCY_NOT_EMPTY'")
        #expect(create(harness, ["name": ""])?.message == "Name und Betrag fehlen")
    }

    @Test func namesAreOneTo25CharactersWithoutControlCharacters() throws {
        let harness = try AccountsHarness()
        let long = create(harness, ["name": .string(String(repeating: "a", count: 26))])
        #expect(long == TallyError(.invalidArgument, "name must be at most 25 characters; this one has 26", field: "args.name"))
        #expect(create(harness, ["name": .string(String(repeating: "🇯🇵", count: 26))])?.field == "args.name")
        // A pile of combining marks is one character but no name.
        #expect(create(harness, ["name": .string("a" + String(repeating: "\u{301}", count: 2000))]) == TallyError(
            .invalidArgument, "name must be at most 1024 bytes of UTF-8; this one has 4001", field: "args.name"))
        #expect(create(harness, ["name": "Pay\tcheck"])?.message.contains("control characters") == true)
        #expect(create(harness, ["name": 42])?.message == "name must be a string, not a number")
        #expect(try harness.count() == 0)
    }

    @Test func aDuplicateNameIsAlreadyExistsIgnoringCaseAndSpaces() throws {
        let harness = try AccountsHarness()
        try harness.create("Wallet")
        for name in ["Wallet", " wallet ", "WALLET"] {
            let error = create(harness, ["name": .string(name)])
            #expect(error?.code == .alreadyExists, "\(name)")
            #expect(error?.field == "args.name")
            #expect(error?.message == "you already have an account named \"Wallet\" (id 1); names are compared ignoring case")
        }
        try harness.create("Straße")
        #expect(create(harness, ["name": "STRASSE"])?.code == .alreadyExists, "case folding, not just lower-casing")
        try harness.create("École")
        #expect(create(harness, ["name": "e\u{301}cole"])?.code == .alreadyExists, "the same letters however composed")
        #expect(try harness.count() == 3)
    }

    @Test func theCurrencyMustBeKnown() throws {
        let harness = try AccountsHarness()
        let unknown = create(harness, ["currency": "XYZ"])
        #expect(unknown?.field == "args.currency")
        #expect(unknown?.message.contains("not a known currency") == true)
        let noLocale = create(harness, ["currency": .null], locale: nil)
        #expect(noLocale?.field == "args.currency")
        #expect(noLocale?.message.contains("locale") == true)
        #expect(create(harness, ["currency": 840])?.field == "args.currency")
    }

    @Test func startingBalancesAreExactDecimalsOfTheCurrency() throws {
        let harness = try AccountsHarness()
        let field = "args.starting_balance"
        #expect(create(harness, ["starting_balance": "12.345"]) == TallyError(
            .invalidArgument, "starting_balance is over-precise: USD amounts have at most 2 decimal places, and it has 3", field: field))
        #expect(create(harness, ["starting_balance": "12.5", "currency": "JPY"]) == TallyError(
            .invalidArgument, "starting_balance is over-precise: JPY amounts are whole numbers, and it has 1", field: field))
        for malformed in ["1e5", "+5", " 5", "5 ", "1,000.00", ".5", "5.", "--5", "-", "five", "٣"] {
            let error = create(harness, ["starting_balance": .string(malformed)])
            #expect(error?.field == field, "\(malformed)")
            #expect(error?.message.hasPrefix("starting_balance must be a decimal such as \"1250.00\" or \"-80.00\"") == true, "\(malformed): \(error?.message ?? "")")
        }
        #expect(create(harness, ["starting_balance": "12345678901234567890.123"]) == TallyError(
            .invalidArgument, "starting_balance must be at most 22 characters long; this one has 24", field: field))
        // Any balance the 22-character field can hold fits: 128-bit minor units (see StorageTests).
        #expect(create(harness, ["starting_balance": .number(12.5)])?.message.contains("JSON numbers with a fraction are not exact") == true)
        #expect(create(harness, ["starting_balance": true])?.field == field)
        #expect(try harness.count() == 0)
    }

    /// The owner is the caller; a client that still names one (as before sign-in existed) is told
    /// what changed, whatever else its args hold.
    @Test func theOwnerIsTheSignedInCallerNeverAnArgument() throws {
        let harness = try AccountsHarness()
        for owner in ["ann", "bo", .null, 7] as [JSONValue] {
            #expect(create(harness, ["owner": owner, "balance": "1"]) == TallyError(
                .invalidArgument,
                "owner is no longer an argument: accounts.create acts on the signed-in caller's own data, the user of the envelope's token; remove owner, and send the token of the person whose data it is (identity.login gives one; tally login stores one for tally call)",
                field: "args.owner"), "\(owner)")
        }
        let anonymous = harness.error("accounts.create", ["name": "Wallet", "starting_balance": "1.00", "currency": "USD"], as: nil)
        #expect(anonymous?.code == .unauthenticated)
        #expect(anonymous?.field == "token")
        #expect(try harness.count() == 0)
        #expect(try harness.create("Wallet", owner: "bo")["owner"] == "bo", "kept under the caller's user id")
    }

    @Test func unknownArgsAndWrongTypesAreRefused() throws {
        let harness = try AccountsHarness()
        let unknown = create(harness, ["balance": "10.00"])
        #expect(unknown == TallyError(
            .invalidArgument, "unknown field 'balance'; args accepts currency, is_default, name, starting_balance", field: "args.balance"))
        #expect(create(harness, ["is_default": "yes"]) == TallyError(.invalidArgument, "is_default must be true or false, not a string", field: "args.is_default"))
        #expect(try harness.count() == 0)
    }
}
