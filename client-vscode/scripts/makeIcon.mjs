// Draws the marketplace icon, media/icon.png: a 128x128 cairn of four stones
// on a rounded dark square, the same glyph as the activity bar's cairn.svg.
// Written by hand (zlib + a CRC), so it needs nothing but Node:
//   node scripts/makeIcon.mjs
// The PNG is committed; run this again only to change the drawing.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const SUPERSAMPLE = 4; // samples per pixel side, for smooth edges
const CORNER_RADIUS = 26;
const BACKGROUND_TOP = [0x2b, 0x3d, 0x4f];
const BACKGROUND_BOTTOM = [0x17, 0x22, 0x2d];
const RIM = [0x12, 0x1a, 0x22];
const RIM_WIDTH = 2.2;
// Stones from the bottom up: centre y, radii, base colour.
const STONES = [
  { cy: 99, rx: 44, ry: 14, color: [0x9a, 0x93, 0x86] },
  { cy: 74, rx: 34, ry: 13, color: [0xb4, 0xac, 0x9c] },
  { cy: 51, rx: 25, ry: 11, color: [0xc9, 0xc1, 0xb0] },
  { cy: 31, rx: 15, ry: 9, color: [0xe0, 0xd8, 0xc6] },
];
const CENTRE_X = 64;
const SHADOW = { cy: 112, rx: 48, ry: 6, alpha: 0.35 };

const here = dirname(fileURLToPath(import.meta.url));
const out = join(resolve(here, '..'), 'media', 'icon.png');

function insideRoundedSquare(x, y) {
  const r = CORNER_RADIUS;
  const cx = Math.min(Math.max(x, r), SIZE - r);
  const cy = Math.min(Math.max(y, r), SIZE - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);

/** The colour at one sample point, or undefined outside the icon. */
function sample(x, y) {
  if (!insideRoundedSquare(x, y)) return undefined;
  let color = mix(BACKGROUND_TOP, BACKGROUND_BOTTOM, y / SIZE);
  const shadow = ((x - CENTRE_X) / SHADOW.rx) ** 2 + ((y - SHADOW.cy) / SHADOW.ry) ** 2;
  if (shadow < 1) color = mix(color, [0, 0, 0], SHADOW.alpha * (1 - shadow));
  for (const stone of STONES) {
    const nx = (x - CENTRE_X) / stone.rx;
    const ny = (y - stone.cy) / stone.ry;
    const d = Math.sqrt(nx * nx + ny * ny);
    if (d > 1) continue;
    // Lit from the top left: lighter there, darker towards the bottom right.
    const light = 1 + 0.22 * -ny + 0.08 * -nx - 0.12 * d * d;
    const lit = stone.color.map((v) => Math.min(255, v * light));
    const rim = 1 - RIM_WIDTH / Math.min(stone.rx, stone.ry);
    color = d > rim ? RIM : lit;
  }
  return color;
}

function render() {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  const n = SUPERSAMPLE * SUPERSAMPLE;
  for (let py = 0; py < SIZE; py++) {
    for (let px = 0; px < SIZE; px++) {
      const sum = [0, 0, 0];
      let covered = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const c = sample(px + (sx + 0.5) / SUPERSAMPLE, py + (sy + 0.5) / SUPERSAMPLE);
          if (!c) continue;
          covered++;
          for (let i = 0; i < 3; i++) sum[i] += c[i];
        }
      }
      const at = (py * SIZE + px) * 4;
      for (let i = 0; i < 3; i++) pixels[at + i] = covered ? Math.round(sum[i] / covered) : 0;
      pixels[at + 3] = Math.round((covered / n) * 255);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(pixels) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header[8] = 8; // bits per channel
  header[9] = 6; // RGBA
  const rows = [];
  for (let y = 0; y < SIZE; y++) rows.push(Buffer.from([0]), pixels.subarray(y * SIZE * 4, (y + 1) * SIZE * 4));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

writeFileSync(out, png(render()));
console.log(`makeIcon: wrote ${out}`);
