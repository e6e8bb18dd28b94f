// The peer voice agent of the reply-latency benchmark: LiveKit Agents' AgentSession with its
// own defaults (Silero VAD, the default end-of-turn delays), its OpenAI plugins pointed at the
// benchmark's OpenAI-compatible stand-in (OPENAI_BASE_URL): Whisper-style transcription,
// streamed chat completions and speech. It joins every room the LiveKit server (LIVEKIT_URL,
// LIVEKIT_API_KEY, LIVEKIT_API_SECRET) dispatches to it:
//
//	node agent.mjs start
import { WorkerOptions, cli, defineAgent, voice } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import * as silero from '@livekit/agents-plugin-silero';
import { fileURLToPath } from 'node:url';

export default defineAgent({
  prewarm: async (proc) => {
    proc.userData.vad = await silero.VAD.load();
  },
  entry: async (ctx) => {
    await ctx.connect();
    const baseURL = process.env.OPENAI_BASE_URL;
    const apiKey = process.env.OPENAI_API_KEY || 'sk-test';
    const session = new voice.AgentSession({
      vad: ctx.proc.userData.vad,
      stt: new openai.STT({ baseURL, apiKey, useRealtime: false, model: 'whisper-1', language: 'en' }),
      llm: new openai.LLM({ baseURL, apiKey, model: 'gpt-4o-mini' }),
      tts: new openai.TTS({ baseURL, apiKey, model: 'tts-1', voice: 'alloy' }),
    });
    await session.start({
      agent: new voice.Agent({ instructions: 'You are an oral examiner. Acknowledge the answer and ask one question.' }),
      room: ctx.room,
    });
  },
});

cli.runApp(new WorkerOptions({ agent: fileURLToPath(import.meta.url) }));
