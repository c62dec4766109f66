import JSON5 from 'json5';
import { Worker } from 'node:worker_threads';
const cpu=()=>{const c=process.cpuUsage();return (c.user+c.system)/1000};
function cfg(bytes){ const labels=[]; let s=''; let i=0; while(true){ const d=`{x:${i},y:${(i*7)%100},label:'p${i}'},`; if(s.length+d.length>bytes-60)break; s+=d;i++;} return `{type:'line',data:{datasets:[{data:[${s}]}]}}`; }
for (const n of [4096, 16384, 65536, 262144, 2*1024*1024]) { const t=cfg(n); JSON5.parse(t); const a=cpu(); const w=performance.now(); for(let k=0;k<3;k++) JSON5.parse(t); console.log('json5', n, ((cpu()-a)/3).toFixed(2),'ms cpu', ((performance.now()-w)/3).toFixed(1),'ms wall'); }
const w = new Worker(`const {parentPort}=require('node:worker_threads'); parentPort.on('message', (t)=>parentPort.postMessage({ok:1}));`, {eval:true});
await new Promise(r=>{w.once('message',r); w.postMessage('x')});
for (const n of [4096, 16384, 65536]) { const t=cfg(n); const a=cpu(); const s=performance.now(); for(let k=0;k<50;k++) await new Promise(r=>{w.once('message',r); w.postMessage(t)}); console.log('hop', n, ((cpu()-a)/50).toFixed(3),'ms cpu(main+worker)', ((performance.now()-s)/50).toFixed(2),'ms wall'); }
await w.terminate();
