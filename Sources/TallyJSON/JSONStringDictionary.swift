/// A dictionary keyed by strings is a JSON object whose keys are data (currency codes, locales,
/// endpoints), not Swift names: `TallyJSON` writes and reads them as they are, where a keyed
/// container would name them by `JSONKeyNaming` (`USD` would be `usd`).
protocol EncodableStringDictionary {
    func jsonNode(parent: NodeEncoder?, key: CodingKey?) throws -> JSONNode
}

protocol DecodableStringDictionary {
    init(jsonMembersOf decoder: JSONValueDecoder) throws
}

extension Dictionary: EncodableStringDictionary where Key == String, Value: Encodable {
    func jsonNode(parent: NodeEncoder?, key: CodingKey?) throws -> JSONNode {
        let box = JSONNode.ObjectBox()
        box.members.reserveCapacity(count)
        let encoder = NodeEncoder(parent: parent, key: key)
        for (name, value) in self {
            box.members.append((name, try JSONNode.make(value, parent: encoder, key: JSONKey(name))))
        }
        return .object(box)
    }
}

extension Dictionary: DecodableStringDictionary where Key == String, Value: Decodable {
    init(jsonMembersOf decoder: JSONValueDecoder) throws {
        guard case .object(let members) = decoder.value else {
            throw decoder.mismatch(Self.self, decoder.codingPath)
        }
        self.init(minimumCapacity: members.count)
        for (name, value) in members {
            self[name] = try JSONValueDecoder(value, parent: decoder, key: JSONKey(name)).decodeValue(Value.self)
        }
    }
}
