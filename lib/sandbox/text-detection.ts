/** Whether bytes a file tool read are text it may show the model. */
/** NUL bytes or invalid UTF-8 in the first 8 KiB mean binary. */
export function looksBinary(data: Buffer): boolean {
  const sample = data.subarray(0, 8_192);
  if (sample.includes(0)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(sample.length === data.length ? sample : trimPartialCharacter(sample));
    return false;
  } catch {
    return true;
  }
}

function trimPartialCharacter(sample: Buffer): Buffer {
  // A sample cut in the middle of a multi-byte character is not binary.
  const end = sample.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = sample[end - back]!;
    if ((byte & 0xc0) === 0xc0) return sample.subarray(0, end - back);
    if ((byte & 0x80) === 0) break;
  }
  return sample;
}
