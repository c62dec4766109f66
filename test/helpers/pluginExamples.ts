// The examples live beside the gallery that draws them (src/chart/pluginExamples.ts).
export * from '../../src/chart/pluginExamples.js';
