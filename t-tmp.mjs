import * as a from 'acorn';
const o={ecmaVersion:'latest'};
function run(s){ try{a.parseExpressionAt(s,0,o)}catch(e){} try{a.parse(s,o)}catch(e){} }
for (let i=0;i<200;i++) run('(a)=>'.repeat(50)+'('.repeat(50));
const cpu=()=>{const c=process.cpuUsage();return (c.user+c.system)/1000};
for (const u of ['(', '`${', 'a=>', '(a)=>', 'x ']) for (const n of [50,100,200,400,800,1600]) {
  const s=u.repeat(n); const t=cpu(); for(let k=0;k<5;k++) run(s);
  console.log(n,u,((cpu()-t)/5).toFixed(2),'ms cpu');
}
