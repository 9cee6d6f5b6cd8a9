extension Arguments {
    /// A row id (`list_id`, `team_id`, an account's `id`): a whole number from 1. `what` says whose
    /// (`"one of your lists"`), for the message.
    public func id(_ key: String, of what: String) throws(TallyError) -> Int64 {
        guard let id = try optionalID(key, of: what) else {
            throw .invalidArgument("\(key) is required (the id of \(what), such as 1)", field: field(key))
        }
        return id
    }

    public func optionalID(_ key: String, of what: String) throws(TallyError) -> Int64? {
        guard has(key) else { return nil }
        guard case .integer(let id)? = values[key], id >= 1 else {
            throw .invalidArgument("\(key) must be the id of \(what): a whole number from 1", field: field(key))
        }
        return id
    }
}
