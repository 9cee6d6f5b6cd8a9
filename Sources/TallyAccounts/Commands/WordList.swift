/// The languages the Budget Bunny screens ship in.
enum Language: String, CaseIterable, Sendable {
    case en, ja, zh

    /// The language of a locale identifier (`ja_JP`, `zh-Hans-CN`, `en-GB`, `fr_FR.UTF-8`):
    /// its first subtag, when it is one of ours; English otherwise, and without a locale.
    /// Chinese has one word list, in simplified characters, for every `zh` locale.
    init(locale: String?) {
        let language = locale?.prefix(while: { $0 != "_" && $0 != "-" && $0 != "." && $0 != "@" }).lowercased()
        self = language.flatMap(Language.init(rawValue:)) ?? .en
    }
}

/// The localization word list of the add-account and currency-picker screens, by language and
/// key, as seeded into `localized_string`.
enum WordList {
    /// The key of the message for an empty account name or starting balance.
    static let nameOrBalanceEmpty = "ERRORLABEL_NAME_CURRENCY_NOT_EMPTY"

    /// The texts the `localized-strings-v1` migration seeds. That migration has shipped with this
    /// data: change a text with a new migration that updates its row, not here.
    static let seed: [Language: [String: String]] = [
        .en: [
            "MENULABEL_ADD_ACCOUNT": "Add Account",
            "BUTTON_DONE": "Done",
            "LABEL_NAME": "Name",
            "TEXTFIELD_NAME_PLACEHOLDER": "Account name",
            "LABEL_CURRENCY": "Currency",
            "LABEL_STARTING_BALANCE": "Starting Balance",
            "TEXTFIELD_STARTING_BALANCE_PLACEHOLDER": "Amount",
            "LABEL_IS_DEFAULT_ACCOUNT": "Default Account",
            "LABEL_IS_DEFAULT_ACCOUNT_DESCRIPTION": "Use this account for everyday transactions.",
            "ERRORLABEL_ERROR_TITLE": "Error",
            "ERRORLABEL_NAME_CURRENCY_NOT_EMPTY": "Please enter both an account name and a starting balance.",
            "MENULABEL_CURRENCY_PICKER": "Select Currency",
            "LABEL_LOADING": "Loading…",
        ],
        .ja: [
            "MENULABEL_ADD_ACCOUNT": "口座を追加",
            "BUTTON_DONE": "完了",
            "LABEL_NAME": "名前",
            "TEXTFIELD_NAME_PLACEHOLDER": "口座名",
            "LABEL_CURRENCY": "通貨",
            "LABEL_STARTING_BALANCE": "初期残高",
            "TEXTFIELD_STARTING_BALANCE_PLACEHOLDER": "金額",
            "LABEL_IS_DEFAULT_ACCOUNT": "メイン口座",
            "LABEL_IS_DEFAULT_ACCOUNT_DESCRIPTION": "普段の取引にはこの口座を使います。",
            "ERRORLABEL_ERROR_TITLE": "エラー",
            "ERRORLABEL_NAME_CURRENCY_NOT_EMPTY": "口座名と初期残高の両方を入力してください。",
            "MENULABEL_CURRENCY_PICKER": "通貨を選択",
            "LABEL_LOADING": "読み込み中…",
        ],
        .zh: [
            "MENULABEL_ADD_ACCOUNT": "添加账户",
            "BUTTON_DONE": "完成",
            "LABEL_NAME": "名称",
            "TEXTFIELD_NAME_PLACEHOLDER": "账户名称",
            "LABEL_CURRENCY": "货币",
            "LABEL_STARTING_BALANCE": "初始余额",
            "TEXTFIELD_STARTING_BALANCE_PLACEHOLDER": "金额",
            "LABEL_IS_DEFAULT_ACCOUNT": "默认账户",
            "LABEL_IS_DEFAULT_ACCOUNT_DESCRIPTION": "日常收支默认使用此账户。",
            "ERRORLABEL_ERROR_TITLE": "错误",
            "ERRORLABEL_NAME_CURRENCY_NOT_EMPTY": "请填写账户名称和初始余额。",
            "MENULABEL_CURRENCY_PICKER": "选择货币",
            "LABEL_LOADING": "正在加载…",
        ],
    ]
}
