/// One command as `system.describe` tells it, and as a worker of another service describes its own
/// in its READY (`WorkerDescription`): the fields of `CommandDescription`, and the JSON Schemas of
/// its args and result.
public struct DescribedCommand: Codable, Sendable, Equatable {
    public let name: String
    public let kind: CommandKind
    /// `open`, `user` or `role`; with `role`, `role` names it.
    public let access: String
    public let role: String?
    /// True when the service confirms the caller before `access` is checked (their session still
    /// open, their roles as they are now: identity's privileged commands); absent otherwise.
    public let confirmsSession: Bool?
    public let summary: String
    public let argsSchema: JSONValue?
    public let resultSchema: JSONValue?

    /// A command of Tally's catalog, with its schemas from `schemas`.
    public init(_ command: CommandDescription, schemas: SchemaLibrary) {
        name = command.name
        kind = command.kind
        switch command.access {
        case .open: (access, role) = ("open", nil)
        case .user: (access, role) = ("user", nil)
        case .role(let name): (access, role) = ("role", name)
        }
        confirmsSession = command.confirmsCaller ? true : nil
        summary = command.summary
        argsSchema = schemas.args(of: command.name)
        resultSchema = schemas.result(of: command.name)
    }

    /// Who may call it, for people: "anyone", "a signed-in user", "role admin".
    public var accessDescription: String {
        let who =
            switch access {
            case "open": "anyone"
            case "user": "a signed-in user"
            default: "role \(role ?? "?")"
            }
        return confirmsSession == true ? who + ", session checked" : who
    }
}
