import TallyProtocol

/// What a rule makes of an event, before it is stored and numbered.
public struct AlertDraft: Sendable, Equatable {
    public var kind: String
    public var owner: String
    public var text: String
    public var data: JSONValue

    public init(kind: String, owner: String, text: String, data: JSONValue) {
        self.kind = kind
        self.owner = owner
        self.text = text
        self.data = data
    }
}
