// The two ways a protobuf body fails: not protobuf at all (a 400), or protobuf this server has no table for (a 415).

/** A body that is not well-formed protobuf, or does not fit its kind's table: why, and where when the reader knows. */
export class WireFormatError extends Error {
  override name = 'WireFormatError';
  constructor(
    message: string,
    readonly offset?: number,
  ) {
    super(offset === undefined ? message : `${message} at byte ${offset}`);
  }
}

/** A body this server cannot turn into JSON without losing something: the kind, or one field, it has no table for. */
export class UndecodableProtobufError extends Error {
  override name = 'UndecodableProtobufError';
}
