import TallyStorage

/// What happened to an account (schemas/events/accounts.*.json): every event's data is the
/// account as the change left it (as it was, for a deletion), its subject the account's owner.
enum AccountEvent: ServiceEvent {
    case accountCreated(AccountResult)
    case accountUpdated(AccountResult)
    case accountDeleted(AccountResult)
    case defaultChanged(AccountResult)

    var type: String {
        switch self {
        case .accountCreated: "accounts.account_created"
        case .accountUpdated: "accounts.account_updated"
        case .accountDeleted: "accounts.account_deleted"
        case .defaultChanged: "accounts.default_changed"
        }
    }

    var payload: any EventPayload {
        switch self {
        case .accountCreated(let account), .accountUpdated(let account), .accountDeleted(let account), .defaultChanged(let account):
            account
        }
    }
}

extension AccountResult: EventPayload {
    var subject: String? { owner }
}
