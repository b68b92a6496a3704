// One server→client WebSocket text message as the bytes written to the socket: header and payload
// in one Buffer, built once per frame and written as is to every recipient (one write, no header
// allocated per delivery).

/** Header bytes of an unmasked server frame carrying `length` payload bytes. */
function headerLength(length: number): number {
  return length < 126 ? 2 : length < 65536 ? 4 : 10;
}

/** A buffer holding the header of a FIN text message (RSV1 when `compressed`) with room for the payload after it. */
function allocFrame(length: number, compressed: boolean): { frame: Buffer; at: number } {
  const at = headerLength(length);
  const frame = Buffer.allocUnsafe(at + length);
  frame[0] = 0x80 | (compressed ? 0x40 : 0) | 0x01; // FIN, RSV1 when compressed, text opcode
  if (at === 2) {
    frame[1] = length;
  } else if (at === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(0, 2);
    frame.writeUInt32BE(length, 6);
  }
  return { frame, at };
}

/** The message whose payload is `payload` (deflate data when `compressed`, else the text's bytes). */
export function wsFrame(payload: Uint8Array, compressed: boolean): Buffer {
  const { frame, at } = allocFrame(payload.length, compressed);
  frame.set(payload, at);
  return frame;
}

/** The same from a string, written straight into the frame (`encoding` latin1 for delta bytes that crossed as a string). */
export function wsFrameFromString(text: string, encoding: 'utf8' | 'latin1', compressed: boolean): Buffer {
  const length = encoding === 'latin1' ? text.length : Buffer.byteLength(text);
  const { frame, at } = allocFrame(length, compressed);
  frame.write(text, at, encoding);
  return frame;
}

/** The payload of a frame built here. */
export function wsPayload(frame: Buffer): Buffer {
  const len = frame[1] & 0x7f;
  return frame.subarray(len < 126 ? 2 : len === 126 ? 4 : 10);
}
