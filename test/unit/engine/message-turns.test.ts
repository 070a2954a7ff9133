/**
 * The turns a load gives the engine's messages (src/engine/message-turns.ts): a turn ends only
 * once every answer handed to the channel is written, and it lets in what came in meanwhile even
 * when the load resumed from a write's end (the event loop's poll phase).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { test } from 'node:test';
import { MessageTurns } from '../../../src/engine/message-turns';

test('a turn ends once every answer handed to the channel is written', async () => {
  const turns = new MessageTurns();
  let first = () => {};
  let second = () => {};
  turns.hand((written) => (first = written));
  turns.hand((written) => (second = written));
  const order: string[] = [];
  const turn = turns.turn().then(() => order.push('turn'));
  await new Promise((r) => setTimeout(r, 20));
  order.push('first written');
  first();
  first(); // a callback called twice counts once
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(turns.pending, 1);
  order.push('second written');
  second();
  await turn;
  assert.deepEqual(order, ['first written', 'second written', 'turn']);
  assert.equal(turns.pending, 0);
  await turns.turn(); // nothing pending: one turn of the loop
});

test('an answer whose send throws (it cannot be serialized) counts as written: later turns do not wait for it', async () => {
  const turns = new MessageTurns();
  assert.throws(
    () =>
      turns.hand(() => {
        throw new Error('could not be cloned');
      }),
    /could not be cloned/,
  );
  assert.equal(turns.pending, 0);
  let ended = false;
  const turn = turns.turn().then(() => (ended = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(ended, 'the turn ended');
  await turn;
  // and a send that works is waited for
  let written: (() => void) | undefined;
  turns.hand((w) => (written = w));
  assert.equal(turns.pending, 1);
  written!();
  await turns.turn();
});

test('a turn begun in the poll phase (work resumed by a write) lets in a message that came meanwhile before it ends', async () => {
  // a socket pair in this process: what one side writes, the other reads in the loop's next poll
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await new Promise((r) => client.once('connect', r));
  const peer = await accepted;
  try {
    const order: string[] = [];
    peer.on('data', () => order.push('message in'));
    const turns = new MessageTurns();
    await new Promise<void>((done) => {
      // a file system callback runs in the loop's poll phase, as a load resumed by a written answer does
      fs.stat(__filename, () => {
        client.write('request'); // the host's request, readable at the next poll
        void turns.turn().then(() => {
          order.push('turn ended');
          done();
        });
      });
    });
    assert.deepEqual(order, ['message in', 'turn ended']);
  } finally {
    client.destroy();
    peer.destroy();
    server.close();
  }
});
