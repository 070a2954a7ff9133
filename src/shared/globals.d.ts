// The few globals that both sides of shared/ have (Node 20+ and the webview's browser) but the
// ES2022 library does not declare. Nothing from the DOM or Node beyond these.
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: string);
  decode(input?: ArrayBufferView | ArrayBuffer): string;
}
