// What the page uses of livekit-client, loaded after the page (page.js imports this module
// dynamically; esbuild makes it a chunk of its own and keeps only what is named here).
export { DisconnectReason, Room, RoomEvent, Track } from 'livekit-client';
