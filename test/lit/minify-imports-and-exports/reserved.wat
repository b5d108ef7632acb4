;; RUN: tilt-opt --minify-imports-and-exports
;; Generated names skip JS reserved words: candidates 332 ("if"), 764
;; ("in") and 813 ("do") are passed over, so x330 gets "gf" and x331
;; "hf", and the last export, x815, gets "io". Binaryen 108 prints the
;; same mapping.
(module
  (func $f)
  (export "x000" (func $f)) (export "x001" (func $f)) (export "x002" (func $f)) (export "x003" (func $f)) (export "x004" (func $f)) (export "x005" (func $f))
  (export "x006" (func $f)) (export "x007" (func $f)) (export "x008" (func $f)) (export "x009" (func $f)) (export "x010" (func $f)) (export "x011" (func $f))
  (export "x012" (func $f)) (export "x013" (func $f)) (export "x014" (func $f)) (export "x015" (func $f)) (export "x016" (func $f)) (export "x017" (func $f))
  (export "x018" (func $f)) (export "x019" (func $f)) (export "x020" (func $f)) (export "x021" (func $f)) (export "x022" (func $f)) (export "x023" (func $f))
  (export "x024" (func $f)) (export "x025" (func $f)) (export "x026" (func $f)) (export "x027" (func $f)) (export "x028" (func $f)) (export "x029" (func $f))
  (export "x030" (func $f)) (export "x031" (func $f)) (export "x032" (func $f)) (export "x033" (func $f)) (export "x034" (func $f)) (export "x035" (func $f))
  (export "x036" (func $f)) (export "x037" (func $f)) (export "x038" (func $f)) (export "x039" (func $f)) (export "x040" (func $f)) (export "x041" (func $f))
  (export "x042" (func $f)) (export "x043" (func $f)) (export "x044" (func $f)) (export "x045" (func $f)) (export "x046" (func $f)) (export "x047" (func $f))
  (export "x048" (func $f)) (export "x049" (func $f)) (export "x050" (func $f)) (export "x051" (func $f)) (export "x052" (func $f)) (export "x053" (func $f))
  (export "x054" (func $f)) (export "x055" (func $f)) (export "x056" (func $f)) (export "x057" (func $f)) (export "x058" (func $f)) (export "x059" (func $f))
  (export "x060" (func $f)) (export "x061" (func $f)) (export "x062" (func $f)) (export "x063" (func $f)) (export "x064" (func $f)) (export "x065" (func $f))
  (export "x066" (func $f)) (export "x067" (func $f)) (export "x068" (func $f)) (export "x069" (func $f)) (export "x070" (func $f)) (export "x071" (func $f))
  (export "x072" (func $f)) (export "x073" (func $f)) (export "x074" (func $f)) (export "x075" (func $f)) (export "x076" (func $f)) (export "x077" (func $f))
  (export "x078" (func $f)) (export "x079" (func $f)) (export "x080" (func $f)) (export "x081" (func $f)) (export "x082" (func $f)) (export "x083" (func $f))
  (export "x084" (func $f)) (export "x085" (func $f)) (export "x086" (func $f)) (export "x087" (func $f)) (export "x088" (func $f)) (export "x089" (func $f))
  (export "x090" (func $f)) (export "x091" (func $f)) (export "x092" (func $f)) (export "x093" (func $f)) (export "x094" (func $f)) (export "x095" (func $f))
  (export "x096" (func $f)) (export "x097" (func $f)) (export "x098" (func $f)) (export "x099" (func $f)) (export "x100" (func $f)) (export "x101" (func $f))
  (export "x102" (func $f)) (export "x103" (func $f)) (export "x104" (func $f)) (export "x105" (func $f)) (export "x106" (func $f)) (export "x107" (func $f))
  (export "x108" (func $f)) (export "x109" (func $f)) (export "x110" (func $f)) (export "x111" (func $f)) (export "x112" (func $f)) (export "x113" (func $f))
  (export "x114" (func $f)) (export "x115" (func $f)) (export "x116" (func $f)) (export "x117" (func $f)) (export "x118" (func $f)) (export "x119" (func $f))
  (export "x120" (func $f)) (export "x121" (func $f)) (export "x122" (func $f)) (export "x123" (func $f)) (export "x124" (func $f)) (export "x125" (func $f))
  (export "x126" (func $f)) (export "x127" (func $f)) (export "x128" (func $f)) (export "x129" (func $f)) (export "x130" (func $f)) (export "x131" (func $f))
  (export "x132" (func $f)) (export "x133" (func $f)) (export "x134" (func $f)) (export "x135" (func $f)) (export "x136" (func $f)) (export "x137" (func $f))
  (export "x138" (func $f)) (export "x139" (func $f)) (export "x140" (func $f)) (export "x141" (func $f)) (export "x142" (func $f)) (export "x143" (func $f))
  (export "x144" (func $f)) (export "x145" (func $f)) (export "x146" (func $f)) (export "x147" (func $f)) (export "x148" (func $f)) (export "x149" (func $f))
  (export "x150" (func $f)) (export "x151" (func $f)) (export "x152" (func $f)) (export "x153" (func $f)) (export "x154" (func $f)) (export "x155" (func $f))
  (export "x156" (func $f)) (export "x157" (func $f)) (export "x158" (func $f)) (export "x159" (func $f)) (export "x160" (func $f)) (export "x161" (func $f))
  (export "x162" (func $f)) (export "x163" (func $f)) (export "x164" (func $f)) (export "x165" (func $f)) (export "x166" (func $f)) (export "x167" (func $f))
  (export "x168" (func $f)) (export "x169" (func $f)) (export "x170" (func $f)) (export "x171" (func $f)) (export "x172" (func $f)) (export "x173" (func $f))
  (export "x174" (func $f)) (export "x175" (func $f)) (export "x176" (func $f)) (export "x177" (func $f)) (export "x178" (func $f)) (export "x179" (func $f))
  (export "x180" (func $f)) (export "x181" (func $f)) (export "x182" (func $f)) (export "x183" (func $f)) (export "x184" (func $f)) (export "x185" (func $f))
  (export "x186" (func $f)) (export "x187" (func $f)) (export "x188" (func $f)) (export "x189" (func $f)) (export "x190" (func $f)) (export "x191" (func $f))
  (export "x192" (func $f)) (export "x193" (func $f)) (export "x194" (func $f)) (export "x195" (func $f)) (export "x196" (func $f)) (export "x197" (func $f))
  (export "x198" (func $f)) (export "x199" (func $f)) (export "x200" (func $f)) (export "x201" (func $f)) (export "x202" (func $f)) (export "x203" (func $f))
  (export "x204" (func $f)) (export "x205" (func $f)) (export "x206" (func $f)) (export "x207" (func $f)) (export "x208" (func $f)) (export "x209" (func $f))
  (export "x210" (func $f)) (export "x211" (func $f)) (export "x212" (func $f)) (export "x213" (func $f)) (export "x214" (func $f)) (export "x215" (func $f))
  (export "x216" (func $f)) (export "x217" (func $f)) (export "x218" (func $f)) (export "x219" (func $f)) (export "x220" (func $f)) (export "x221" (func $f))
  (export "x222" (func $f)) (export "x223" (func $f)) (export "x224" (func $f)) (export "x225" (func $f)) (export "x226" (func $f)) (export "x227" (func $f))
  (export "x228" (func $f)) (export "x229" (func $f)) (export "x230" (func $f)) (export "x231" (func $f)) (export "x232" (func $f)) (export "x233" (func $f))
  (export "x234" (func $f)) (export "x235" (func $f)) (export "x236" (func $f)) (export "x237" (func $f)) (export "x238" (func $f)) (export "x239" (func $f))
  (export "x240" (func $f)) (export "x241" (func $f)) (export "x242" (func $f)) (export "x243" (func $f)) (export "x244" (func $f)) (export "x245" (func $f))
  (export "x246" (func $f)) (export "x247" (func $f)) (export "x248" (func $f)) (export "x249" (func $f)) (export "x250" (func $f)) (export "x251" (func $f))
  (export "x252" (func $f)) (export "x253" (func $f)) (export "x254" (func $f)) (export "x255" (func $f)) (export "x256" (func $f)) (export "x257" (func $f))
  (export "x258" (func $f)) (export "x259" (func $f)) (export "x260" (func $f)) (export "x261" (func $f)) (export "x262" (func $f)) (export "x263" (func $f))
  (export "x264" (func $f)) (export "x265" (func $f)) (export "x266" (func $f)) (export "x267" (func $f)) (export "x268" (func $f)) (export "x269" (func $f))
  (export "x270" (func $f)) (export "x271" (func $f)) (export "x272" (func $f)) (export "x273" (func $f)) (export "x274" (func $f)) (export "x275" (func $f))
  (export "x276" (func $f)) (export "x277" (func $f)) (export "x278" (func $f)) (export "x279" (func $f)) (export "x280" (func $f)) (export "x281" (func $f))
  (export "x282" (func $f)) (export "x283" (func $f)) (export "x284" (func $f)) (export "x285" (func $f)) (export "x286" (func $f)) (export "x287" (func $f))
  (export "x288" (func $f)) (export "x289" (func $f)) (export "x290" (func $f)) (export "x291" (func $f)) (export "x292" (func $f)) (export "x293" (func $f))
  (export "x294" (func $f)) (export "x295" (func $f)) (export "x296" (func $f)) (export "x297" (func $f)) (export "x298" (func $f)) (export "x299" (func $f))
  (export "x300" (func $f)) (export "x301" (func $f)) (export "x302" (func $f)) (export "x303" (func $f)) (export "x304" (func $f)) (export "x305" (func $f))
  (export "x306" (func $f)) (export "x307" (func $f)) (export "x308" (func $f)) (export "x309" (func $f)) (export "x310" (func $f)) (export "x311" (func $f))
  (export "x312" (func $f)) (export "x313" (func $f)) (export "x314" (func $f)) (export "x315" (func $f)) (export "x316" (func $f)) (export "x317" (func $f))
  (export "x318" (func $f)) (export "x319" (func $f)) (export "x320" (func $f)) (export "x321" (func $f)) (export "x322" (func $f)) (export "x323" (func $f))
  (export "x324" (func $f)) (export "x325" (func $f)) (export "x326" (func $f)) (export "x327" (func $f)) (export "x328" (func $f)) (export "x329" (func $f))
  (export "x330" (func $f)) (export "x331" (func $f)) (export "x332" (func $f)) (export "x333" (func $f)) (export "x334" (func $f)) (export "x335" (func $f))
  (export "x336" (func $f)) (export "x337" (func $f)) (export "x338" (func $f)) (export "x339" (func $f)) (export "x340" (func $f)) (export "x341" (func $f))
  (export "x342" (func $f)) (export "x343" (func $f)) (export "x344" (func $f)) (export "x345" (func $f)) (export "x346" (func $f)) (export "x347" (func $f))
  (export "x348" (func $f)) (export "x349" (func $f)) (export "x350" (func $f)) (export "x351" (func $f)) (export "x352" (func $f)) (export "x353" (func $f))
  (export "x354" (func $f)) (export "x355" (func $f)) (export "x356" (func $f)) (export "x357" (func $f)) (export "x358" (func $f)) (export "x359" (func $f))
  (export "x360" (func $f)) (export "x361" (func $f)) (export "x362" (func $f)) (export "x363" (func $f)) (export "x364" (func $f)) (export "x365" (func $f))
  (export "x366" (func $f)) (export "x367" (func $f)) (export "x368" (func $f)) (export "x369" (func $f)) (export "x370" (func $f)) (export "x371" (func $f))
  (export "x372" (func $f)) (export "x373" (func $f)) (export "x374" (func $f)) (export "x375" (func $f)) (export "x376" (func $f)) (export "x377" (func $f))
  (export "x378" (func $f)) (export "x379" (func $f)) (export "x380" (func $f)) (export "x381" (func $f)) (export "x382" (func $f)) (export "x383" (func $f))
  (export "x384" (func $f)) (export "x385" (func $f)) (export "x386" (func $f)) (export "x387" (func $f)) (export "x388" (func $f)) (export "x389" (func $f))
  (export "x390" (func $f)) (export "x391" (func $f)) (export "x392" (func $f)) (export "x393" (func $f)) (export "x394" (func $f)) (export "x395" (func $f))
  (export "x396" (func $f)) (export "x397" (func $f)) (export "x398" (func $f)) (export "x399" (func $f)) (export "x400" (func $f)) (export "x401" (func $f))
  (export "x402" (func $f)) (export "x403" (func $f)) (export "x404" (func $f)) (export "x405" (func $f)) (export "x406" (func $f)) (export "x407" (func $f))
  (export "x408" (func $f)) (export "x409" (func $f)) (export "x410" (func $f)) (export "x411" (func $f)) (export "x412" (func $f)) (export "x413" (func $f))
  (export "x414" (func $f)) (export "x415" (func $f)) (export "x416" (func $f)) (export "x417" (func $f)) (export "x418" (func $f)) (export "x419" (func $f))
  (export "x420" (func $f)) (export "x421" (func $f)) (export "x422" (func $f)) (export "x423" (func $f)) (export "x424" (func $f)) (export "x425" (func $f))
  (export "x426" (func $f)) (export "x427" (func $f)) (export "x428" (func $f)) (export "x429" (func $f)) (export "x430" (func $f)) (export "x431" (func $f))
  (export "x432" (func $f)) (export "x433" (func $f)) (export "x434" (func $f)) (export "x435" (func $f)) (export "x436" (func $f)) (export "x437" (func $f))
  (export "x438" (func $f)) (export "x439" (func $f)) (export "x440" (func $f)) (export "x441" (func $f)) (export "x442" (func $f)) (export "x443" (func $f))
  (export "x444" (func $f)) (export "x445" (func $f)) (export "x446" (func $f)) (export "x447" (func $f)) (export "x448" (func $f)) (export "x449" (func $f))
  (export "x450" (func $f)) (export "x451" (func $f)) (export "x452" (func $f)) (export "x453" (func $f)) (export "x454" (func $f)) (export "x455" (func $f))
  (export "x456" (func $f)) (export "x457" (func $f)) (export "x458" (func $f)) (export "x459" (func $f)) (export "x460" (func $f)) (export "x461" (func $f))
  (export "x462" (func $f)) (export "x463" (func $f)) (export "x464" (func $f)) (export "x465" (func $f)) (export "x466" (func $f)) (export "x467" (func $f))
  (export "x468" (func $f)) (export "x469" (func $f)) (export "x470" (func $f)) (export "x471" (func $f)) (export "x472" (func $f)) (export "x473" (func $f))
  (export "x474" (func $f)) (export "x475" (func $f)) (export "x476" (func $f)) (export "x477" (func $f)) (export "x478" (func $f)) (export "x479" (func $f))
  (export "x480" (func $f)) (export "x481" (func $f)) (export "x482" (func $f)) (export "x483" (func $f)) (export "x484" (func $f)) (export "x485" (func $f))
  (export "x486" (func $f)) (export "x487" (func $f)) (export "x488" (func $f)) (export "x489" (func $f)) (export "x490" (func $f)) (export "x491" (func $f))
  (export "x492" (func $f)) (export "x493" (func $f)) (export "x494" (func $f)) (export "x495" (func $f)) (export "x496" (func $f)) (export "x497" (func $f))
  (export "x498" (func $f)) (export "x499" (func $f)) (export "x500" (func $f)) (export "x501" (func $f)) (export "x502" (func $f)) (export "x503" (func $f))
  (export "x504" (func $f)) (export "x505" (func $f)) (export "x506" (func $f)) (export "x507" (func $f)) (export "x508" (func $f)) (export "x509" (func $f))
  (export "x510" (func $f)) (export "x511" (func $f)) (export "x512" (func $f)) (export "x513" (func $f)) (export "x514" (func $f)) (export "x515" (func $f))
  (export "x516" (func $f)) (export "x517" (func $f)) (export "x518" (func $f)) (export "x519" (func $f)) (export "x520" (func $f)) (export "x521" (func $f))
  (export "x522" (func $f)) (export "x523" (func $f)) (export "x524" (func $f)) (export "x525" (func $f)) (export "x526" (func $f)) (export "x527" (func $f))
  (export "x528" (func $f)) (export "x529" (func $f)) (export "x530" (func $f)) (export "x531" (func $f)) (export "x532" (func $f)) (export "x533" (func $f))
  (export "x534" (func $f)) (export "x535" (func $f)) (export "x536" (func $f)) (export "x537" (func $f)) (export "x538" (func $f)) (export "x539" (func $f))
  (export "x540" (func $f)) (export "x541" (func $f)) (export "x542" (func $f)) (export "x543" (func $f)) (export "x544" (func $f)) (export "x545" (func $f))
  (export "x546" (func $f)) (export "x547" (func $f)) (export "x548" (func $f)) (export "x549" (func $f)) (export "x550" (func $f)) (export "x551" (func $f))
  (export "x552" (func $f)) (export "x553" (func $f)) (export "x554" (func $f)) (export "x555" (func $f)) (export "x556" (func $f)) (export "x557" (func $f))
  (export "x558" (func $f)) (export "x559" (func $f)) (export "x560" (func $f)) (export "x561" (func $f)) (export "x562" (func $f)) (export "x563" (func $f))
  (export "x564" (func $f)) (export "x565" (func $f)) (export "x566" (func $f)) (export "x567" (func $f)) (export "x568" (func $f)) (export "x569" (func $f))
  (export "x570" (func $f)) (export "x571" (func $f)) (export "x572" (func $f)) (export "x573" (func $f)) (export "x574" (func $f)) (export "x575" (func $f))
  (export "x576" (func $f)) (export "x577" (func $f)) (export "x578" (func $f)) (export "x579" (func $f)) (export "x580" (func $f)) (export "x581" (func $f))
  (export "x582" (func $f)) (export "x583" (func $f)) (export "x584" (func $f)) (export "x585" (func $f)) (export "x586" (func $f)) (export "x587" (func $f))
  (export "x588" (func $f)) (export "x589" (func $f)) (export "x590" (func $f)) (export "x591" (func $f)) (export "x592" (func $f)) (export "x593" (func $f))
  (export "x594" (func $f)) (export "x595" (func $f)) (export "x596" (func $f)) (export "x597" (func $f)) (export "x598" (func $f)) (export "x599" (func $f))
  (export "x600" (func $f)) (export "x601" (func $f)) (export "x602" (func $f)) (export "x603" (func $f)) (export "x604" (func $f)) (export "x605" (func $f))
  (export "x606" (func $f)) (export "x607" (func $f)) (export "x608" (func $f)) (export "x609" (func $f)) (export "x610" (func $f)) (export "x611" (func $f))
  (export "x612" (func $f)) (export "x613" (func $f)) (export "x614" (func $f)) (export "x615" (func $f)) (export "x616" (func $f)) (export "x617" (func $f))
  (export "x618" (func $f)) (export "x619" (func $f)) (export "x620" (func $f)) (export "x621" (func $f)) (export "x622" (func $f)) (export "x623" (func $f))
  (export "x624" (func $f)) (export "x625" (func $f)) (export "x626" (func $f)) (export "x627" (func $f)) (export "x628" (func $f)) (export "x629" (func $f))
  (export "x630" (func $f)) (export "x631" (func $f)) (export "x632" (func $f)) (export "x633" (func $f)) (export "x634" (func $f)) (export "x635" (func $f))
  (export "x636" (func $f)) (export "x637" (func $f)) (export "x638" (func $f)) (export "x639" (func $f)) (export "x640" (func $f)) (export "x641" (func $f))
  (export "x642" (func $f)) (export "x643" (func $f)) (export "x644" (func $f)) (export "x645" (func $f)) (export "x646" (func $f)) (export "x647" (func $f))
  (export "x648" (func $f)) (export "x649" (func $f)) (export "x650" (func $f)) (export "x651" (func $f)) (export "x652" (func $f)) (export "x653" (func $f))
  (export "x654" (func $f)) (export "x655" (func $f)) (export "x656" (func $f)) (export "x657" (func $f)) (export "x658" (func $f)) (export "x659" (func $f))
  (export "x660" (func $f)) (export "x661" (func $f)) (export "x662" (func $f)) (export "x663" (func $f)) (export "x664" (func $f)) (export "x665" (func $f))
  (export "x666" (func $f)) (export "x667" (func $f)) (export "x668" (func $f)) (export "x669" (func $f)) (export "x670" (func $f)) (export "x671" (func $f))
  (export "x672" (func $f)) (export "x673" (func $f)) (export "x674" (func $f)) (export "x675" (func $f)) (export "x676" (func $f)) (export "x677" (func $f))
  (export "x678" (func $f)) (export "x679" (func $f)) (export "x680" (func $f)) (export "x681" (func $f)) (export "x682" (func $f)) (export "x683" (func $f))
  (export "x684" (func $f)) (export "x685" (func $f)) (export "x686" (func $f)) (export "x687" (func $f)) (export "x688" (func $f)) (export "x689" (func $f))
  (export "x690" (func $f)) (export "x691" (func $f)) (export "x692" (func $f)) (export "x693" (func $f)) (export "x694" (func $f)) (export "x695" (func $f))
  (export "x696" (func $f)) (export "x697" (func $f)) (export "x698" (func $f)) (export "x699" (func $f)) (export "x700" (func $f)) (export "x701" (func $f))
  (export "x702" (func $f)) (export "x703" (func $f)) (export "x704" (func $f)) (export "x705" (func $f)) (export "x706" (func $f)) (export "x707" (func $f))
  (export "x708" (func $f)) (export "x709" (func $f)) (export "x710" (func $f)) (export "x711" (func $f)) (export "x712" (func $f)) (export "x713" (func $f))
  (export "x714" (func $f)) (export "x715" (func $f)) (export "x716" (func $f)) (export "x717" (func $f)) (export "x718" (func $f)) (export "x719" (func $f))
  (export "x720" (func $f)) (export "x721" (func $f)) (export "x722" (func $f)) (export "x723" (func $f)) (export "x724" (func $f)) (export "x725" (func $f))
  (export "x726" (func $f)) (export "x727" (func $f)) (export "x728" (func $f)) (export "x729" (func $f)) (export "x730" (func $f)) (export "x731" (func $f))
  (export "x732" (func $f)) (export "x733" (func $f)) (export "x734" (func $f)) (export "x735" (func $f)) (export "x736" (func $f)) (export "x737" (func $f))
  (export "x738" (func $f)) (export "x739" (func $f)) (export "x740" (func $f)) (export "x741" (func $f)) (export "x742" (func $f)) (export "x743" (func $f))
  (export "x744" (func $f)) (export "x745" (func $f)) (export "x746" (func $f)) (export "x747" (func $f)) (export "x748" (func $f)) (export "x749" (func $f))
  (export "x750" (func $f)) (export "x751" (func $f)) (export "x752" (func $f)) (export "x753" (func $f)) (export "x754" (func $f)) (export "x755" (func $f))
  (export "x756" (func $f)) (export "x757" (func $f)) (export "x758" (func $f)) (export "x759" (func $f)) (export "x760" (func $f)) (export "x761" (func $f))
  (export "x762" (func $f)) (export "x763" (func $f)) (export "x764" (func $f)) (export "x765" (func $f)) (export "x766" (func $f)) (export "x767" (func $f))
  (export "x768" (func $f)) (export "x769" (func $f)) (export "x770" (func $f)) (export "x771" (func $f)) (export "x772" (func $f)) (export "x773" (func $f))
  (export "x774" (func $f)) (export "x775" (func $f)) (export "x776" (func $f)) (export "x777" (func $f)) (export "x778" (func $f)) (export "x779" (func $f))
  (export "x780" (func $f)) (export "x781" (func $f)) (export "x782" (func $f)) (export "x783" (func $f)) (export "x784" (func $f)) (export "x785" (func $f))
  (export "x786" (func $f)) (export "x787" (func $f)) (export "x788" (func $f)) (export "x789" (func $f)) (export "x790" (func $f)) (export "x791" (func $f))
  (export "x792" (func $f)) (export "x793" (func $f)) (export "x794" (func $f)) (export "x795" (func $f)) (export "x796" (func $f)) (export "x797" (func $f))
  (export "x798" (func $f)) (export "x799" (func $f)) (export "x800" (func $f)) (export "x801" (func $f)) (export "x802" (func $f)) (export "x803" (func $f))
  (export "x804" (func $f)) (export "x805" (func $f)) (export "x806" (func $f)) (export "x807" (func $f)) (export "x808" (func $f)) (export "x809" (func $f))
  (export "x810" (func $f)) (export "x811" (func $f)) (export "x812" (func $f)) (export "x813" (func $f)) (export "x814" (func $f)) (export "x815" (func $f))
)

;; The CHECK lines below are generated by tools/update-lit; review the diff.
;; CHECK: x053 => $
;; CHECK: x107 => $a
;; CHECK: x161 => $b
;; CHECK: x215 => $c
;; CHECK: x269 => $d
;; CHECK: x323 => $e
;; CHECK: x376 => $f
;; CHECK: x430 => $g
;; CHECK: x484 => $h
;; CHECK: x538 => $i
;; CHECK: x592 => $j
;; CHECK: x646 => $k
;; CHECK: x700 => $l
;; CHECK: x754 => $m
;; CHECK: x807 => $n
;; CHECK: x026 => A
;; CHECK: x080 => Aa
;; CHECK: x134 => Ab
;; CHECK: x188 => Ac
;; CHECK: x242 => Ad
;; CHECK: x296 => Ae
;; CHECK: x349 => Af
;; CHECK: x403 => Ag
;; CHECK: x457 => Ah
;; CHECK: x511 => Ai
;; CHECK: x565 => Aj
;; CHECK: x619 => Ak
;; CHECK: x673 => Al
;; CHECK: x727 => Am
;; CHECK: x780 => An
;; CHECK: x027 => B
;; CHECK: x081 => Ba
;; CHECK: x135 => Bb
;; CHECK: x189 => Bc
;; CHECK: x243 => Bd
;; CHECK: x297 => Be
;; CHECK: x350 => Bf
;; CHECK: x404 => Bg
;; CHECK: x458 => Bh
;; CHECK: x512 => Bi
;; CHECK: x566 => Bj
;; CHECK: x620 => Bk
;; CHECK: x674 => Bl
;; CHECK: x728 => Bm
;; CHECK: x781 => Bn
;; CHECK: x028 => C
;; CHECK: x082 => Ca
;; CHECK: x136 => Cb
;; CHECK: x190 => Cc
;; CHECK: x244 => Cd
;; CHECK: x298 => Ce
;; CHECK: x351 => Cf
;; CHECK: x405 => Cg
;; CHECK: x459 => Ch
;; CHECK: x513 => Ci
;; CHECK: x567 => Cj
;; CHECK: x621 => Ck
;; CHECK: x675 => Cl
;; CHECK: x729 => Cm
;; CHECK: x782 => Cn
;; CHECK: x029 => D
;; CHECK: x083 => Da
;; CHECK: x137 => Db
;; CHECK: x191 => Dc
;; CHECK: x245 => Dd
;; CHECK: x299 => De
;; CHECK: x352 => Df
;; CHECK: x406 => Dg
;; CHECK: x460 => Dh
;; CHECK: x514 => Di
;; CHECK: x568 => Dj
;; CHECK: x622 => Dk
;; CHECK: x676 => Dl
;; CHECK: x730 => Dm
;; CHECK: x783 => Dn
;; CHECK: x030 => E
;; CHECK: x084 => Ea
;; CHECK: x138 => Eb
;; CHECK: x192 => Ec
;; CHECK: x246 => Ed
;; CHECK: x300 => Ee
;; CHECK: x353 => Ef
;; CHECK: x407 => Eg
;; CHECK: x461 => Eh
;; CHECK: x515 => Ei
;; CHECK: x569 => Ej
;; CHECK: x623 => Ek
;; CHECK: x677 => El
;; CHECK: x731 => Em
;; CHECK: x784 => En
;; CHECK: x031 => F
;; CHECK: x085 => Fa
;; CHECK: x139 => Fb
;; CHECK: x193 => Fc
;; CHECK: x247 => Fd
;; CHECK: x301 => Fe
;; CHECK: x354 => Ff
;; CHECK: x408 => Fg
;; CHECK: x462 => Fh
;; CHECK: x516 => Fi
;; CHECK: x570 => Fj
;; CHECK: x624 => Fk
;; CHECK: x678 => Fl
;; CHECK: x732 => Fm
;; CHECK: x785 => Fn
;; CHECK: x032 => G
;; CHECK: x086 => Ga
;; CHECK: x140 => Gb
;; CHECK: x194 => Gc
;; CHECK: x248 => Gd
;; CHECK: x302 => Ge
;; CHECK: x355 => Gf
;; CHECK: x409 => Gg
;; CHECK: x463 => Gh
;; CHECK: x517 => Gi
;; CHECK: x571 => Gj
;; CHECK: x625 => Gk
;; CHECK: x679 => Gl
;; CHECK: x733 => Gm
;; CHECK: x786 => Gn
;; CHECK: x033 => H
;; CHECK: x087 => Ha
;; CHECK: x141 => Hb
;; CHECK: x195 => Hc
;; CHECK: x249 => Hd
;; CHECK: x303 => He
;; CHECK: x356 => Hf
;; CHECK: x410 => Hg
;; CHECK: x464 => Hh
;; CHECK: x518 => Hi
;; CHECK: x572 => Hj
;; CHECK: x626 => Hk
;; CHECK: x680 => Hl
;; CHECK: x734 => Hm
;; CHECK: x787 => Hn
;; CHECK: x034 => I
;; CHECK: x088 => Ia
;; CHECK: x142 => Ib
;; CHECK: x196 => Ic
;; CHECK: x250 => Id
;; CHECK: x304 => Ie
;; CHECK: x357 => If
;; CHECK: x411 => Ig
;; CHECK: x465 => Ih
;; CHECK: x519 => Ii
;; CHECK: x573 => Ij
;; CHECK: x627 => Ik
;; CHECK: x681 => Il
;; CHECK: x735 => Im
;; CHECK: x788 => In
;; CHECK: x035 => J
;; CHECK: x089 => Ja
;; CHECK: x143 => Jb
;; CHECK: x197 => Jc
;; CHECK: x251 => Jd
;; CHECK: x305 => Je
;; CHECK: x358 => Jf
;; CHECK: x412 => Jg
;; CHECK: x466 => Jh
;; CHECK: x520 => Ji
;; CHECK: x574 => Jj
;; CHECK: x628 => Jk
;; CHECK: x682 => Jl
;; CHECK: x736 => Jm
;; CHECK: x789 => Jn
;; CHECK: x036 => K
;; CHECK: x090 => Ka
;; CHECK: x144 => Kb
;; CHECK: x198 => Kc
;; CHECK: x252 => Kd
;; CHECK: x306 => Ke
;; CHECK: x359 => Kf
;; CHECK: x413 => Kg
;; CHECK: x467 => Kh
;; CHECK: x521 => Ki
;; CHECK: x575 => Kj
;; CHECK: x629 => Kk
;; CHECK: x683 => Kl
;; CHECK: x737 => Km
;; CHECK: x790 => Kn
;; CHECK: x037 => L
;; CHECK: x091 => La
;; CHECK: x145 => Lb
;; CHECK: x199 => Lc
;; CHECK: x253 => Ld
;; CHECK: x307 => Le
;; CHECK: x360 => Lf
;; CHECK: x414 => Lg
;; CHECK: x468 => Lh
;; CHECK: x522 => Li
;; CHECK: x576 => Lj
;; CHECK: x630 => Lk
;; CHECK: x684 => Ll
;; CHECK: x738 => Lm
;; CHECK: x791 => Ln
;; CHECK: x038 => M
;; CHECK: x092 => Ma
;; CHECK: x146 => Mb
;; CHECK: x200 => Mc
;; CHECK: x254 => Md
;; CHECK: x308 => Me
;; CHECK: x361 => Mf
;; CHECK: x415 => Mg
;; CHECK: x469 => Mh
;; CHECK: x523 => Mi
;; CHECK: x577 => Mj
;; CHECK: x631 => Mk
;; CHECK: x685 => Ml
;; CHECK: x739 => Mm
;; CHECK: x792 => Mn
;; CHECK: x039 => N
;; CHECK: x093 => Na
;; CHECK: x147 => Nb
;; CHECK: x201 => Nc
;; CHECK: x255 => Nd
;; CHECK: x309 => Ne
;; CHECK: x362 => Nf
;; CHECK: x416 => Ng
;; CHECK: x470 => Nh
;; CHECK: x524 => Ni
;; CHECK: x578 => Nj
;; CHECK: x632 => Nk
;; CHECK: x686 => Nl
;; CHECK: x740 => Nm
;; CHECK: x793 => Nn
;; CHECK: x040 => O
;; CHECK: x094 => Oa
;; CHECK: x148 => Ob
;; CHECK: x202 => Oc
;; CHECK: x256 => Od
;; CHECK: x310 => Oe
;; CHECK: x363 => Of
;; CHECK: x417 => Og
;; CHECK: x471 => Oh
;; CHECK: x525 => Oi
;; CHECK: x579 => Oj
;; CHECK: x633 => Ok
;; CHECK: x687 => Ol
;; CHECK: x741 => Om
;; CHECK: x794 => On
;; CHECK: x041 => P
;; CHECK: x095 => Pa
;; CHECK: x149 => Pb
;; CHECK: x203 => Pc
;; CHECK: x257 => Pd
;; CHECK: x311 => Pe
;; CHECK: x364 => Pf
;; CHECK: x418 => Pg
;; CHECK: x472 => Ph
;; CHECK: x526 => Pi
;; CHECK: x580 => Pj
;; CHECK: x634 => Pk
;; CHECK: x688 => Pl
;; CHECK: x742 => Pm
;; CHECK: x795 => Pn
;; CHECK: x042 => Q
;; CHECK: x096 => Qa
;; CHECK: x150 => Qb
;; CHECK: x204 => Qc
;; CHECK: x258 => Qd
;; CHECK: x312 => Qe
;; CHECK: x365 => Qf
;; CHECK: x419 => Qg
;; CHECK: x473 => Qh
;; CHECK: x527 => Qi
;; CHECK: x581 => Qj
;; CHECK: x635 => Qk
;; CHECK: x689 => Ql
;; CHECK: x743 => Qm
;; CHECK: x796 => Qn
;; CHECK: x043 => R
;; CHECK: x097 => Ra
;; CHECK: x151 => Rb
;; CHECK: x205 => Rc
;; CHECK: x259 => Rd
;; CHECK: x313 => Re
;; CHECK: x366 => Rf
;; CHECK: x420 => Rg
;; CHECK: x474 => Rh
;; CHECK: x528 => Ri
;; CHECK: x582 => Rj
;; CHECK: x636 => Rk
;; CHECK: x690 => Rl
;; CHECK: x744 => Rm
;; CHECK: x797 => Rn
;; CHECK: x044 => S
;; CHECK: x098 => Sa
;; CHECK: x152 => Sb
;; CHECK: x206 => Sc
;; CHECK: x260 => Sd
;; CHECK: x314 => Se
;; CHECK: x367 => Sf
;; CHECK: x421 => Sg
;; CHECK: x475 => Sh
;; CHECK: x529 => Si
;; CHECK: x583 => Sj
;; CHECK: x637 => Sk
;; CHECK: x691 => Sl
;; CHECK: x745 => Sm
;; CHECK: x798 => Sn
;; CHECK: x045 => T
;; CHECK: x099 => Ta
;; CHECK: x153 => Tb
;; CHECK: x207 => Tc
;; CHECK: x261 => Td
;; CHECK: x315 => Te
;; CHECK: x368 => Tf
;; CHECK: x422 => Tg
;; CHECK: x476 => Th
;; CHECK: x530 => Ti
;; CHECK: x584 => Tj
;; CHECK: x638 => Tk
;; CHECK: x692 => Tl
;; CHECK: x746 => Tm
;; CHECK: x799 => Tn
;; CHECK: x046 => U
;; CHECK: x100 => Ua
;; CHECK: x154 => Ub
;; CHECK: x208 => Uc
;; CHECK: x262 => Ud
;; CHECK: x316 => Ue
;; CHECK: x369 => Uf
;; CHECK: x423 => Ug
;; CHECK: x477 => Uh
;; CHECK: x531 => Ui
;; CHECK: x585 => Uj
;; CHECK: x639 => Uk
;; CHECK: x693 => Ul
;; CHECK: x747 => Um
;; CHECK: x800 => Un
;; CHECK: x047 => V
;; CHECK: x101 => Va
;; CHECK: x155 => Vb
;; CHECK: x209 => Vc
;; CHECK: x263 => Vd
;; CHECK: x317 => Ve
;; CHECK: x370 => Vf
;; CHECK: x424 => Vg
;; CHECK: x478 => Vh
;; CHECK: x532 => Vi
;; CHECK: x586 => Vj
;; CHECK: x640 => Vk
;; CHECK: x694 => Vl
;; CHECK: x748 => Vm
;; CHECK: x801 => Vn
;; CHECK: x048 => W
;; CHECK: x102 => Wa
;; CHECK: x156 => Wb
;; CHECK: x210 => Wc
;; CHECK: x264 => Wd
;; CHECK: x318 => We
;; CHECK: x371 => Wf
;; CHECK: x425 => Wg
;; CHECK: x479 => Wh
;; CHECK: x533 => Wi
;; CHECK: x587 => Wj
;; CHECK: x641 => Wk
;; CHECK: x695 => Wl
;; CHECK: x749 => Wm
;; CHECK: x802 => Wn
;; CHECK: x049 => X
;; CHECK: x103 => Xa
;; CHECK: x157 => Xb
;; CHECK: x211 => Xc
;; CHECK: x265 => Xd
;; CHECK: x319 => Xe
;; CHECK: x372 => Xf
;; CHECK: x426 => Xg
;; CHECK: x480 => Xh
;; CHECK: x534 => Xi
;; CHECK: x588 => Xj
;; CHECK: x642 => Xk
;; CHECK: x696 => Xl
;; CHECK: x750 => Xm
;; CHECK: x803 => Xn
;; CHECK: x050 => Y
;; CHECK: x104 => Ya
;; CHECK: x158 => Yb
;; CHECK: x212 => Yc
;; CHECK: x266 => Yd
;; CHECK: x320 => Ye
;; CHECK: x373 => Yf
;; CHECK: x427 => Yg
;; CHECK: x481 => Yh
;; CHECK: x535 => Yi
;; CHECK: x589 => Yj
;; CHECK: x643 => Yk
;; CHECK: x697 => Yl
;; CHECK: x751 => Ym
;; CHECK: x804 => Yn
;; CHECK: x051 => Z
;; CHECK: x105 => Za
;; CHECK: x159 => Zb
;; CHECK: x213 => Zc
;; CHECK: x267 => Zd
;; CHECK: x321 => Ze
;; CHECK: x374 => Zf
;; CHECK: x428 => Zg
;; CHECK: x482 => Zh
;; CHECK: x536 => Zi
;; CHECK: x590 => Zj
;; CHECK: x644 => Zk
;; CHECK: x698 => Zl
;; CHECK: x752 => Zm
;; CHECK: x805 => Zn
;; CHECK: x052 => _
;; CHECK: x106 => _a
;; CHECK: x160 => _b
;; CHECK: x214 => _c
;; CHECK: x268 => _d
;; CHECK: x322 => _e
;; CHECK: x375 => _f
;; CHECK: x429 => _g
;; CHECK: x483 => _h
;; CHECK: x537 => _i
;; CHECK: x591 => _j
;; CHECK: x645 => _k
;; CHECK: x699 => _l
;; CHECK: x753 => _m
;; CHECK: x806 => _n
;; CHECK: x000 => a
;; CHECK: x054 => aa
;; CHECK: x108 => ab
;; CHECK: x162 => ac
;; CHECK: x216 => ad
;; CHECK: x270 => ae
;; CHECK: x324 => af
;; CHECK: x377 => ag
;; CHECK: x431 => ah
;; CHECK: x485 => ai
;; CHECK: x539 => aj
;; CHECK: x593 => ak
;; CHECK: x647 => al
;; CHECK: x701 => am
;; CHECK: x755 => an
;; CHECK: x808 => ao
;; CHECK: x001 => b
;; CHECK: x055 => ba
;; CHECK: x109 => bb
;; CHECK: x163 => bc
;; CHECK: x217 => bd
;; CHECK: x271 => be
;; CHECK: x325 => bf
;; CHECK: x378 => bg
;; CHECK: x432 => bh
;; CHECK: x486 => bi
;; CHECK: x540 => bj
;; CHECK: x594 => bk
;; CHECK: x648 => bl
;; CHECK: x702 => bm
;; CHECK: x756 => bn
;; CHECK: x809 => bo
;; CHECK: x002 => c
;; CHECK: x056 => ca
;; CHECK: x110 => cb
;; CHECK: x164 => cc
;; CHECK: x218 => cd
;; CHECK: x272 => ce
;; CHECK: x326 => cf
;; CHECK: x379 => cg
;; CHECK: x433 => ch
;; CHECK: x487 => ci
;; CHECK: x541 => cj
;; CHECK: x595 => ck
;; CHECK: x649 => cl
;; CHECK: x703 => cm
;; CHECK: x757 => cn
;; CHECK: x810 => co
;; CHECK: x003 => d
;; CHECK: x057 => da
;; CHECK: x111 => db
;; CHECK: x165 => dc
;; CHECK: x219 => dd
;; CHECK: x273 => de
;; CHECK: x327 => df
;; CHECK: x380 => dg
;; CHECK: x434 => dh
;; CHECK: x488 => di
;; CHECK: x542 => dj
;; CHECK: x596 => dk
;; CHECK: x650 => dl
;; CHECK: x704 => dm
;; CHECK: x758 => dn
;; CHECK: x004 => e
;; CHECK: x058 => ea
;; CHECK: x112 => eb
;; CHECK: x166 => ec
;; CHECK: x220 => ed
;; CHECK: x274 => ee
;; CHECK: x328 => ef
;; CHECK: x381 => eg
;; CHECK: x435 => eh
;; CHECK: x489 => ei
;; CHECK: x543 => ej
;; CHECK: x597 => ek
;; CHECK: x651 => el
;; CHECK: x705 => em
;; CHECK: x759 => en
;; CHECK: x811 => eo
;; CHECK: x005 => f
;; CHECK: x059 => fa
;; CHECK: x113 => fb
;; CHECK: x167 => fc
;; CHECK: x221 => fd
;; CHECK: x275 => fe
;; CHECK: x329 => ff
;; CHECK: x382 => fg
;; CHECK: x436 => fh
;; CHECK: x490 => fi
;; CHECK: x544 => fj
;; CHECK: x598 => fk
;; CHECK: x652 => fl
;; CHECK: x706 => fm
;; CHECK: x760 => fn
;; CHECK: x812 => fo
;; CHECK: x006 => g
;; CHECK: x060 => ga
;; CHECK: x114 => gb
;; CHECK: x168 => gc
;; CHECK: x222 => gd
;; CHECK: x276 => ge
;; CHECK: x330 => gf
;; CHECK: x383 => gg
;; CHECK: x437 => gh
;; CHECK: x491 => gi
;; CHECK: x545 => gj
;; CHECK: x599 => gk
;; CHECK: x653 => gl
;; CHECK: x707 => gm
;; CHECK: x761 => gn
;; CHECK: x813 => go
;; CHECK: x007 => h
;; CHECK: x061 => ha
;; CHECK: x115 => hb
;; CHECK: x169 => hc
;; CHECK: x223 => hd
;; CHECK: x277 => he
;; CHECK: x331 => hf
;; CHECK: x384 => hg
;; CHECK: x438 => hh
;; CHECK: x492 => hi
;; CHECK: x546 => hj
;; CHECK: x600 => hk
;; CHECK: x654 => hl
;; CHECK: x708 => hm
;; CHECK: x762 => hn
;; CHECK: x814 => ho
;; CHECK: x008 => i
;; CHECK: x062 => ia
;; CHECK: x116 => ib
;; CHECK: x170 => ic
;; CHECK: x224 => id
;; CHECK: x278 => ie
;; CHECK: x385 => ig
;; CHECK: x439 => ih
;; CHECK: x493 => ii
;; CHECK: x547 => ij
;; CHECK: x601 => ik
;; CHECK: x655 => il
;; CHECK: x709 => im
;; CHECK: x815 => io
;; CHECK: x009 => j
;; CHECK: x063 => ja
;; CHECK: x117 => jb
;; CHECK: x171 => jc
;; CHECK: x225 => jd
;; CHECK: x279 => je
;; CHECK: x332 => jf
;; CHECK: x386 => jg
;; CHECK: x440 => jh
;; CHECK: x494 => ji
;; CHECK: x548 => jj
;; CHECK: x602 => jk
;; CHECK: x656 => jl
;; CHECK: x710 => jm
;; CHECK: x763 => jn
;; CHECK: x010 => k
;; CHECK: x064 => ka
;; CHECK: x118 => kb
;; CHECK: x172 => kc
;; CHECK: x226 => kd
;; CHECK: x280 => ke
;; CHECK: x333 => kf
;; CHECK: x387 => kg
;; CHECK: x441 => kh
;; CHECK: x495 => ki
;; CHECK: x549 => kj
;; CHECK: x603 => kk
;; CHECK: x657 => kl
;; CHECK: x711 => km
;; CHECK: x764 => kn
;; CHECK: x011 => l
;; CHECK: x065 => la
;; CHECK: x119 => lb
;; CHECK: x173 => lc
;; CHECK: x227 => ld
;; CHECK: x281 => le
;; CHECK: x334 => lf
;; CHECK: x388 => lg
;; CHECK: x442 => lh
;; CHECK: x496 => li
;; CHECK: x550 => lj
;; CHECK: x604 => lk
;; CHECK: x658 => ll
;; CHECK: x712 => lm
;; CHECK: x765 => ln
;; CHECK: x012 => m
;; CHECK: x066 => ma
;; CHECK: x120 => mb
;; CHECK: x174 => mc
;; CHECK: x228 => md
;; CHECK: x282 => me
;; CHECK: x335 => mf
;; CHECK: x389 => mg
;; CHECK: x443 => mh
;; CHECK: x497 => mi
;; CHECK: x551 => mj
;; CHECK: x605 => mk
;; CHECK: x659 => ml
;; CHECK: x713 => mm
;; CHECK: x766 => mn
;; CHECK: x013 => n
;; CHECK: x067 => na
;; CHECK: x121 => nb
;; CHECK: x175 => nc
;; CHECK: x229 => nd
;; CHECK: x283 => ne
;; CHECK: x336 => nf
;; CHECK: x390 => ng
;; CHECK: x444 => nh
;; CHECK: x498 => ni
;; CHECK: x552 => nj
;; CHECK: x606 => nk
;; CHECK: x660 => nl
;; CHECK: x714 => nm
;; CHECK: x767 => nn
;; CHECK: x014 => o
;; CHECK: x068 => oa
;; CHECK: x122 => ob
;; CHECK: x176 => oc
;; CHECK: x230 => od
;; CHECK: x284 => oe
;; CHECK: x337 => of
;; CHECK: x391 => og
;; CHECK: x445 => oh
;; CHECK: x499 => oi
;; CHECK: x553 => oj
;; CHECK: x607 => ok
;; CHECK: x661 => ol
;; CHECK: x715 => om
;; CHECK: x768 => on
;; CHECK: x015 => p
;; CHECK: x069 => pa
;; CHECK: x123 => pb
;; CHECK: x177 => pc
;; CHECK: x231 => pd
;; CHECK: x285 => pe
;; CHECK: x338 => pf
;; CHECK: x392 => pg
;; CHECK: x446 => ph
;; CHECK: x500 => pi
;; CHECK: x554 => pj
;; CHECK: x608 => pk
;; CHECK: x662 => pl
;; CHECK: x716 => pm
;; CHECK: x769 => pn
;; CHECK: x016 => q
;; CHECK: x070 => qa
;; CHECK: x124 => qb
;; CHECK: x178 => qc
;; CHECK: x232 => qd
;; CHECK: x286 => qe
;; CHECK: x339 => qf
;; CHECK: x393 => qg
;; CHECK: x447 => qh
;; CHECK: x501 => qi
;; CHECK: x555 => qj
;; CHECK: x609 => qk
;; CHECK: x663 => ql
;; CHECK: x717 => qm
;; CHECK: x770 => qn
;; CHECK: x017 => r
;; CHECK: x071 => ra
;; CHECK: x125 => rb
;; CHECK: x179 => rc
;; CHECK: x233 => rd
;; CHECK: x287 => re
;; CHECK: x340 => rf
;; CHECK: x394 => rg
;; CHECK: x448 => rh
;; CHECK: x502 => ri
;; CHECK: x556 => rj
;; CHECK: x610 => rk
;; CHECK: x664 => rl
;; CHECK: x718 => rm
;; CHECK: x771 => rn
;; CHECK: x018 => s
;; CHECK: x072 => sa
;; CHECK: x126 => sb
;; CHECK: x180 => sc
;; CHECK: x234 => sd
;; CHECK: x288 => se
;; CHECK: x341 => sf
;; CHECK: x395 => sg
;; CHECK: x449 => sh
;; CHECK: x503 => si
;; CHECK: x557 => sj
;; CHECK: x611 => sk
;; CHECK: x665 => sl
;; CHECK: x719 => sm
;; CHECK: x772 => sn
;; CHECK: x019 => t
;; CHECK: x073 => ta
;; CHECK: x127 => tb
;; CHECK: x181 => tc
;; CHECK: x235 => td
;; CHECK: x289 => te
;; CHECK: x342 => tf
;; CHECK: x396 => tg
;; CHECK: x450 => th
;; CHECK: x504 => ti
;; CHECK: x558 => tj
;; CHECK: x612 => tk
;; CHECK: x666 => tl
;; CHECK: x720 => tm
;; CHECK: x773 => tn
;; CHECK: x020 => u
;; CHECK: x074 => ua
;; CHECK: x128 => ub
;; CHECK: x182 => uc
;; CHECK: x236 => ud
;; CHECK: x290 => ue
;; CHECK: x343 => uf
;; CHECK: x397 => ug
;; CHECK: x451 => uh
;; CHECK: x505 => ui
;; CHECK: x559 => uj
;; CHECK: x613 => uk
;; CHECK: x667 => ul
;; CHECK: x721 => um
;; CHECK: x774 => un
;; CHECK: x021 => v
;; CHECK: x075 => va
;; CHECK: x129 => vb
;; CHECK: x183 => vc
;; CHECK: x237 => vd
;; CHECK: x291 => ve
;; CHECK: x344 => vf
;; CHECK: x398 => vg
;; CHECK: x452 => vh
;; CHECK: x506 => vi
;; CHECK: x560 => vj
;; CHECK: x614 => vk
;; CHECK: x668 => vl
;; CHECK: x722 => vm
;; CHECK: x775 => vn
;; CHECK: x022 => w
;; CHECK: x076 => wa
;; CHECK: x130 => wb
;; CHECK: x184 => wc
;; CHECK: x238 => wd
;; CHECK: x292 => we
;; CHECK: x345 => wf
;; CHECK: x399 => wg
;; CHECK: x453 => wh
;; CHECK: x507 => wi
;; CHECK: x561 => wj
;; CHECK: x615 => wk
;; CHECK: x669 => wl
;; CHECK: x723 => wm
;; CHECK: x776 => wn
;; CHECK: x023 => x
;; CHECK: x077 => xa
;; CHECK: x131 => xb
;; CHECK: x185 => xc
;; CHECK: x239 => xd
;; CHECK: x293 => xe
;; CHECK: x346 => xf
;; CHECK: x400 => xg
;; CHECK: x454 => xh
;; CHECK: x508 => xi
;; CHECK: x562 => xj
;; CHECK: x616 => xk
;; CHECK: x670 => xl
;; CHECK: x724 => xm
;; CHECK: x777 => xn
;; CHECK: x024 => y
;; CHECK: x078 => ya
;; CHECK: x132 => yb
;; CHECK: x186 => yc
;; CHECK: x240 => yd
;; CHECK: x294 => ye
;; CHECK: x347 => yf
;; CHECK: x401 => yg
;; CHECK: x455 => yh
;; CHECK: x509 => yi
;; CHECK: x563 => yj
;; CHECK: x617 => yk
;; CHECK: x671 => yl
;; CHECK: x725 => ym
;; CHECK: x778 => yn
;; CHECK: x025 => z
;; CHECK: x079 => za
;; CHECK: x133 => zb
;; CHECK: x187 => zc
;; CHECK: x241 => zd
;; CHECK: x295 => ze
;; CHECK: x348 => zf
;; CHECK: x402 => zg
;; CHECK: x456 => zh
;; CHECK: x510 => zi
;; CHECK: x564 => zj
;; CHECK: x618 => zk
;; CHECK: x672 => zl
;; CHECK: x726 => zm
;; CHECK: x779 => zn
;; CHECK: (module
;; CHECK:   (type (;0;) (func))
;; CHECK:   (export "a" (func 0))
;; CHECK:   (export "b" (func 0))
;; CHECK:   (export "c" (func 0))
;; CHECK:   (export "d" (func 0))
;; CHECK:   (export "e" (func 0))
;; CHECK:   (export "f" (func 0))
;; CHECK:   (export "g" (func 0))
;; CHECK:   (export "h" (func 0))
;; CHECK:   (export "i" (func 0))
;; CHECK:   (export "j" (func 0))
;; CHECK:   (export "k" (func 0))
;; CHECK:   (export "l" (func 0))
;; CHECK:   (export "m" (func 0))
;; CHECK:   (export "n" (func 0))
;; CHECK:   (export "o" (func 0))
;; CHECK:   (export "p" (func 0))
;; CHECK:   (export "q" (func 0))
;; CHECK:   (export "r" (func 0))
;; CHECK:   (export "s" (func 0))
;; CHECK:   (export "t" (func 0))
;; CHECK:   (export "u" (func 0))
;; CHECK:   (export "v" (func 0))
;; CHECK:   (export "w" (func 0))
;; CHECK:   (export "x" (func 0))
;; CHECK:   (export "y" (func 0))
;; CHECK:   (export "z" (func 0))
;; CHECK:   (export "A" (func 0))
;; CHECK:   (export "B" (func 0))
;; CHECK:   (export "C" (func 0))
;; CHECK:   (export "D" (func 0))
;; CHECK:   (export "E" (func 0))
;; CHECK:   (export "F" (func 0))
;; CHECK:   (export "G" (func 0))
;; CHECK:   (export "H" (func 0))
;; CHECK:   (export "I" (func 0))
;; CHECK:   (export "J" (func 0))
;; CHECK:   (export "K" (func 0))
;; CHECK:   (export "L" (func 0))
;; CHECK:   (export "M" (func 0))
;; CHECK:   (export "N" (func 0))
;; CHECK:   (export "O" (func 0))
;; CHECK:   (export "P" (func 0))
;; CHECK:   (export "Q" (func 0))
;; CHECK:   (export "R" (func 0))
;; CHECK:   (export "S" (func 0))
;; CHECK:   (export "T" (func 0))
;; CHECK:   (export "U" (func 0))
;; CHECK:   (export "V" (func 0))
;; CHECK:   (export "W" (func 0))
;; CHECK:   (export "X" (func 0))
;; CHECK:   (export "Y" (func 0))
;; CHECK:   (export "Z" (func 0))
;; CHECK:   (export "_" (func 0))
;; CHECK:   (export "$" (func 0))
;; CHECK:   (export "aa" (func 0))
;; CHECK:   (export "ba" (func 0))
;; CHECK:   (export "ca" (func 0))
;; CHECK:   (export "da" (func 0))
;; CHECK:   (export "ea" (func 0))
;; CHECK:   (export "fa" (func 0))
;; CHECK:   (export "ga" (func 0))
;; CHECK:   (export "ha" (func 0))
;; CHECK:   (export "ia" (func 0))
;; CHECK:   (export "ja" (func 0))
;; CHECK:   (export "ka" (func 0))
;; CHECK:   (export "la" (func 0))
;; CHECK:   (export "ma" (func 0))
;; CHECK:   (export "na" (func 0))
;; CHECK:   (export "oa" (func 0))
;; CHECK:   (export "pa" (func 0))
;; CHECK:   (export "qa" (func 0))
;; CHECK:   (export "ra" (func 0))
;; CHECK:   (export "sa" (func 0))
;; CHECK:   (export "ta" (func 0))
;; CHECK:   (export "ua" (func 0))
;; CHECK:   (export "va" (func 0))
;; CHECK:   (export "wa" (func 0))
;; CHECK:   (export "xa" (func 0))
;; CHECK:   (export "ya" (func 0))
;; CHECK:   (export "za" (func 0))
;; CHECK:   (export "Aa" (func 0))
;; CHECK:   (export "Ba" (func 0))
;; CHECK:   (export "Ca" (func 0))
;; CHECK:   (export "Da" (func 0))
;; CHECK:   (export "Ea" (func 0))
;; CHECK:   (export "Fa" (func 0))
;; CHECK:   (export "Ga" (func 0))
;; CHECK:   (export "Ha" (func 0))
;; CHECK:   (export "Ia" (func 0))
;; CHECK:   (export "Ja" (func 0))
;; CHECK:   (export "Ka" (func 0))
;; CHECK:   (export "La" (func 0))
;; CHECK:   (export "Ma" (func 0))
;; CHECK:   (export "Na" (func 0))
;; CHECK:   (export "Oa" (func 0))
;; CHECK:   (export "Pa" (func 0))
;; CHECK:   (export "Qa" (func 0))
;; CHECK:   (export "Ra" (func 0))
;; CHECK:   (export "Sa" (func 0))
;; CHECK:   (export "Ta" (func 0))
;; CHECK:   (export "Ua" (func 0))
;; CHECK:   (export "Va" (func 0))
;; CHECK:   (export "Wa" (func 0))
;; CHECK:   (export "Xa" (func 0))
;; CHECK:   (export "Ya" (func 0))
;; CHECK:   (export "Za" (func 0))
;; CHECK:   (export "_a" (func 0))
;; CHECK:   (export "$a" (func 0))
;; CHECK:   (export "ab" (func 0))
;; CHECK:   (export "bb" (func 0))
;; CHECK:   (export "cb" (func 0))
;; CHECK:   (export "db" (func 0))
;; CHECK:   (export "eb" (func 0))
;; CHECK:   (export "fb" (func 0))
;; CHECK:   (export "gb" (func 0))
;; CHECK:   (export "hb" (func 0))
;; CHECK:   (export "ib" (func 0))
;; CHECK:   (export "jb" (func 0))
;; CHECK:   (export "kb" (func 0))
;; CHECK:   (export "lb" (func 0))
;; CHECK:   (export "mb" (func 0))
;; CHECK:   (export "nb" (func 0))
;; CHECK:   (export "ob" (func 0))
;; CHECK:   (export "pb" (func 0))
;; CHECK:   (export "qb" (func 0))
;; CHECK:   (export "rb" (func 0))
;; CHECK:   (export "sb" (func 0))
;; CHECK:   (export "tb" (func 0))
;; CHECK:   (export "ub" (func 0))
;; CHECK:   (export "vb" (func 0))
;; CHECK:   (export "wb" (func 0))
;; CHECK:   (export "xb" (func 0))
;; CHECK:   (export "yb" (func 0))
;; CHECK:   (export "zb" (func 0))
;; CHECK:   (export "Ab" (func 0))
;; CHECK:   (export "Bb" (func 0))
;; CHECK:   (export "Cb" (func 0))
;; CHECK:   (export "Db" (func 0))
;; CHECK:   (export "Eb" (func 0))
;; CHECK:   (export "Fb" (func 0))
;; CHECK:   (export "Gb" (func 0))
;; CHECK:   (export "Hb" (func 0))
;; CHECK:   (export "Ib" (func 0))
;; CHECK:   (export "Jb" (func 0))
;; CHECK:   (export "Kb" (func 0))
;; CHECK:   (export "Lb" (func 0))
;; CHECK:   (export "Mb" (func 0))
;; CHECK:   (export "Nb" (func 0))
;; CHECK:   (export "Ob" (func 0))
;; CHECK:   (export "Pb" (func 0))
;; CHECK:   (export "Qb" (func 0))
;; CHECK:   (export "Rb" (func 0))
;; CHECK:   (export "Sb" (func 0))
;; CHECK:   (export "Tb" (func 0))
;; CHECK:   (export "Ub" (func 0))
;; CHECK:   (export "Vb" (func 0))
;; CHECK:   (export "Wb" (func 0))
;; CHECK:   (export "Xb" (func 0))
;; CHECK:   (export "Yb" (func 0))
;; CHECK:   (export "Zb" (func 0))
;; CHECK:   (export "_b" (func 0))
;; CHECK:   (export "$b" (func 0))
;; CHECK:   (export "ac" (func 0))
;; CHECK:   (export "bc" (func 0))
;; CHECK:   (export "cc" (func 0))
;; CHECK:   (export "dc" (func 0))
;; CHECK:   (export "ec" (func 0))
;; CHECK:   (export "fc" (func 0))
;; CHECK:   (export "gc" (func 0))
;; CHECK:   (export "hc" (func 0))
;; CHECK:   (export "ic" (func 0))
;; CHECK:   (export "jc" (func 0))
;; CHECK:   (export "kc" (func 0))
;; CHECK:   (export "lc" (func 0))
;; CHECK:   (export "mc" (func 0))
;; CHECK:   (export "nc" (func 0))
;; CHECK:   (export "oc" (func 0))
;; CHECK:   (export "pc" (func 0))
;; CHECK:   (export "qc" (func 0))
;; CHECK:   (export "rc" (func 0))
;; CHECK:   (export "sc" (func 0))
;; CHECK:   (export "tc" (func 0))
;; CHECK:   (export "uc" (func 0))
;; CHECK:   (export "vc" (func 0))
;; CHECK:   (export "wc" (func 0))
;; CHECK:   (export "xc" (func 0))
;; CHECK:   (export "yc" (func 0))
;; CHECK:   (export "zc" (func 0))
;; CHECK:   (export "Ac" (func 0))
;; CHECK:   (export "Bc" (func 0))
;; CHECK:   (export "Cc" (func 0))
;; CHECK:   (export "Dc" (func 0))
;; CHECK:   (export "Ec" (func 0))
;; CHECK:   (export "Fc" (func 0))
;; CHECK:   (export "Gc" (func 0))
;; CHECK:   (export "Hc" (func 0))
;; CHECK:   (export "Ic" (func 0))
;; CHECK:   (export "Jc" (func 0))
;; CHECK:   (export "Kc" (func 0))
;; CHECK:   (export "Lc" (func 0))
;; CHECK:   (export "Mc" (func 0))
;; CHECK:   (export "Nc" (func 0))
;; CHECK:   (export "Oc" (func 0))
;; CHECK:   (export "Pc" (func 0))
;; CHECK:   (export "Qc" (func 0))
;; CHECK:   (export "Rc" (func 0))
;; CHECK:   (export "Sc" (func 0))
;; CHECK:   (export "Tc" (func 0))
;; CHECK:   (export "Uc" (func 0))
;; CHECK:   (export "Vc" (func 0))
;; CHECK:   (export "Wc" (func 0))
;; CHECK:   (export "Xc" (func 0))
;; CHECK:   (export "Yc" (func 0))
;; CHECK:   (export "Zc" (func 0))
;; CHECK:   (export "_c" (func 0))
;; CHECK:   (export "$c" (func 0))
;; CHECK:   (export "ad" (func 0))
;; CHECK:   (export "bd" (func 0))
;; CHECK:   (export "cd" (func 0))
;; CHECK:   (export "dd" (func 0))
;; CHECK:   (export "ed" (func 0))
;; CHECK:   (export "fd" (func 0))
;; CHECK:   (export "gd" (func 0))
;; CHECK:   (export "hd" (func 0))
;; CHECK:   (export "id" (func 0))
;; CHECK:   (export "jd" (func 0))
;; CHECK:   (export "kd" (func 0))
;; CHECK:   (export "ld" (func 0))
;; CHECK:   (export "md" (func 0))
;; CHECK:   (export "nd" (func 0))
;; CHECK:   (export "od" (func 0))
;; CHECK:   (export "pd" (func 0))
;; CHECK:   (export "qd" (func 0))
;; CHECK:   (export "rd" (func 0))
;; CHECK:   (export "sd" (func 0))
;; CHECK:   (export "td" (func 0))
;; CHECK:   (export "ud" (func 0))
;; CHECK:   (export "vd" (func 0))
;; CHECK:   (export "wd" (func 0))
;; CHECK:   (export "xd" (func 0))
;; CHECK:   (export "yd" (func 0))
;; CHECK:   (export "zd" (func 0))
;; CHECK:   (export "Ad" (func 0))
;; CHECK:   (export "Bd" (func 0))
;; CHECK:   (export "Cd" (func 0))
;; CHECK:   (export "Dd" (func 0))
;; CHECK:   (export "Ed" (func 0))
;; CHECK:   (export "Fd" (func 0))
;; CHECK:   (export "Gd" (func 0))
;; CHECK:   (export "Hd" (func 0))
;; CHECK:   (export "Id" (func 0))
;; CHECK:   (export "Jd" (func 0))
;; CHECK:   (export "Kd" (func 0))
;; CHECK:   (export "Ld" (func 0))
;; CHECK:   (export "Md" (func 0))
;; CHECK:   (export "Nd" (func 0))
;; CHECK:   (export "Od" (func 0))
;; CHECK:   (export "Pd" (func 0))
;; CHECK:   (export "Qd" (func 0))
;; CHECK:   (export "Rd" (func 0))
;; CHECK:   (export "Sd" (func 0))
;; CHECK:   (export "Td" (func 0))
;; CHECK:   (export "Ud" (func 0))
;; CHECK:   (export "Vd" (func 0))
;; CHECK:   (export "Wd" (func 0))
;; CHECK:   (export "Xd" (func 0))
;; CHECK:   (export "Yd" (func 0))
;; CHECK:   (export "Zd" (func 0))
;; CHECK:   (export "_d" (func 0))
;; CHECK:   (export "$d" (func 0))
;; CHECK:   (export "ae" (func 0))
;; CHECK:   (export "be" (func 0))
;; CHECK:   (export "ce" (func 0))
;; CHECK:   (export "de" (func 0))
;; CHECK:   (export "ee" (func 0))
;; CHECK:   (export "fe" (func 0))
;; CHECK:   (export "ge" (func 0))
;; CHECK:   (export "he" (func 0))
;; CHECK:   (export "ie" (func 0))
;; CHECK:   (export "je" (func 0))
;; CHECK:   (export "ke" (func 0))
;; CHECK:   (export "le" (func 0))
;; CHECK:   (export "me" (func 0))
;; CHECK:   (export "ne" (func 0))
;; CHECK:   (export "oe" (func 0))
;; CHECK:   (export "pe" (func 0))
;; CHECK:   (export "qe" (func 0))
;; CHECK:   (export "re" (func 0))
;; CHECK:   (export "se" (func 0))
;; CHECK:   (export "te" (func 0))
;; CHECK:   (export "ue" (func 0))
;; CHECK:   (export "ve" (func 0))
;; CHECK:   (export "we" (func 0))
;; CHECK:   (export "xe" (func 0))
;; CHECK:   (export "ye" (func 0))
;; CHECK:   (export "ze" (func 0))
;; CHECK:   (export "Ae" (func 0))
;; CHECK:   (export "Be" (func 0))
;; CHECK:   (export "Ce" (func 0))
;; CHECK:   (export "De" (func 0))
;; CHECK:   (export "Ee" (func 0))
;; CHECK:   (export "Fe" (func 0))
;; CHECK:   (export "Ge" (func 0))
;; CHECK:   (export "He" (func 0))
;; CHECK:   (export "Ie" (func 0))
;; CHECK:   (export "Je" (func 0))
;; CHECK:   (export "Ke" (func 0))
;; CHECK:   (export "Le" (func 0))
;; CHECK:   (export "Me" (func 0))
;; CHECK:   (export "Ne" (func 0))
;; CHECK:   (export "Oe" (func 0))
;; CHECK:   (export "Pe" (func 0))
;; CHECK:   (export "Qe" (func 0))
;; CHECK:   (export "Re" (func 0))
;; CHECK:   (export "Se" (func 0))
;; CHECK:   (export "Te" (func 0))
;; CHECK:   (export "Ue" (func 0))
;; CHECK:   (export "Ve" (func 0))
;; CHECK:   (export "We" (func 0))
;; CHECK:   (export "Xe" (func 0))
;; CHECK:   (export "Ye" (func 0))
;; CHECK:   (export "Ze" (func 0))
;; CHECK:   (export "_e" (func 0))
;; CHECK:   (export "$e" (func 0))
;; CHECK:   (export "af" (func 0))
;; CHECK:   (export "bf" (func 0))
;; CHECK:   (export "cf" (func 0))
;; CHECK:   (export "df" (func 0))
;; CHECK:   (export "ef" (func 0))
;; CHECK:   (export "ff" (func 0))
;; CHECK:   (export "gf" (func 0))
;; CHECK:   (export "hf" (func 0))
;; CHECK:   (export "jf" (func 0))
;; CHECK:   (export "kf" (func 0))
;; CHECK:   (export "lf" (func 0))
;; CHECK:   (export "mf" (func 0))
;; CHECK:   (export "nf" (func 0))
;; CHECK:   (export "of" (func 0))
;; CHECK:   (export "pf" (func 0))
;; CHECK:   (export "qf" (func 0))
;; CHECK:   (export "rf" (func 0))
;; CHECK:   (export "sf" (func 0))
;; CHECK:   (export "tf" (func 0))
;; CHECK:   (export "uf" (func 0))
;; CHECK:   (export "vf" (func 0))
;; CHECK:   (export "wf" (func 0))
;; CHECK:   (export "xf" (func 0))
;; CHECK:   (export "yf" (func 0))
;; CHECK:   (export "zf" (func 0))
;; CHECK:   (export "Af" (func 0))
;; CHECK:   (export "Bf" (func 0))
;; CHECK:   (export "Cf" (func 0))
;; CHECK:   (export "Df" (func 0))
;; CHECK:   (export "Ef" (func 0))
;; CHECK:   (export "Ff" (func 0))
;; CHECK:   (export "Gf" (func 0))
;; CHECK:   (export "Hf" (func 0))
;; CHECK:   (export "If" (func 0))
;; CHECK:   (export "Jf" (func 0))
;; CHECK:   (export "Kf" (func 0))
;; CHECK:   (export "Lf" (func 0))
;; CHECK:   (export "Mf" (func 0))
;; CHECK:   (export "Nf" (func 0))
;; CHECK:   (export "Of" (func 0))
;; CHECK:   (export "Pf" (func 0))
;; CHECK:   (export "Qf" (func 0))
;; CHECK:   (export "Rf" (func 0))
;; CHECK:   (export "Sf" (func 0))
;; CHECK:   (export "Tf" (func 0))
;; CHECK:   (export "Uf" (func 0))
;; CHECK:   (export "Vf" (func 0))
;; CHECK:   (export "Wf" (func 0))
;; CHECK:   (export "Xf" (func 0))
;; CHECK:   (export "Yf" (func 0))
;; CHECK:   (export "Zf" (func 0))
;; CHECK:   (export "_f" (func 0))
;; CHECK:   (export "$f" (func 0))
;; CHECK:   (export "ag" (func 0))
;; CHECK:   (export "bg" (func 0))
;; CHECK:   (export "cg" (func 0))
;; CHECK:   (export "dg" (func 0))
;; CHECK:   (export "eg" (func 0))
;; CHECK:   (export "fg" (func 0))
;; CHECK:   (export "gg" (func 0))
;; CHECK:   (export "hg" (func 0))
;; CHECK:   (export "ig" (func 0))
;; CHECK:   (export "jg" (func 0))
;; CHECK:   (export "kg" (func 0))
;; CHECK:   (export "lg" (func 0))
;; CHECK:   (export "mg" (func 0))
;; CHECK:   (export "ng" (func 0))
;; CHECK:   (export "og" (func 0))
;; CHECK:   (export "pg" (func 0))
;; CHECK:   (export "qg" (func 0))
;; CHECK:   (export "rg" (func 0))
;; CHECK:   (export "sg" (func 0))
;; CHECK:   (export "tg" (func 0))
;; CHECK:   (export "ug" (func 0))
;; CHECK:   (export "vg" (func 0))
;; CHECK:   (export "wg" (func 0))
;; CHECK:   (export "xg" (func 0))
;; CHECK:   (export "yg" (func 0))
;; CHECK:   (export "zg" (func 0))
;; CHECK:   (export "Ag" (func 0))
;; CHECK:   (export "Bg" (func 0))
;; CHECK:   (export "Cg" (func 0))
;; CHECK:   (export "Dg" (func 0))
;; CHECK:   (export "Eg" (func 0))
;; CHECK:   (export "Fg" (func 0))
;; CHECK:   (export "Gg" (func 0))
;; CHECK:   (export "Hg" (func 0))
;; CHECK:   (export "Ig" (func 0))
;; CHECK:   (export "Jg" (func 0))
;; CHECK:   (export "Kg" (func 0))
;; CHECK:   (export "Lg" (func 0))
;; CHECK:   (export "Mg" (func 0))
;; CHECK:   (export "Ng" (func 0))
;; CHECK:   (export "Og" (func 0))
;; CHECK:   (export "Pg" (func 0))
;; CHECK:   (export "Qg" (func 0))
;; CHECK:   (export "Rg" (func 0))
;; CHECK:   (export "Sg" (func 0))
;; CHECK:   (export "Tg" (func 0))
;; CHECK:   (export "Ug" (func 0))
;; CHECK:   (export "Vg" (func 0))
;; CHECK:   (export "Wg" (func 0))
;; CHECK:   (export "Xg" (func 0))
;; CHECK:   (export "Yg" (func 0))
;; CHECK:   (export "Zg" (func 0))
;; CHECK:   (export "_g" (func 0))
;; CHECK:   (export "$g" (func 0))
;; CHECK:   (export "ah" (func 0))
;; CHECK:   (export "bh" (func 0))
;; CHECK:   (export "ch" (func 0))
;; CHECK:   (export "dh" (func 0))
;; CHECK:   (export "eh" (func 0))
;; CHECK:   (export "fh" (func 0))
;; CHECK:   (export "gh" (func 0))
;; CHECK:   (export "hh" (func 0))
;; CHECK:   (export "ih" (func 0))
;; CHECK:   (export "jh" (func 0))
;; CHECK:   (export "kh" (func 0))
;; CHECK:   (export "lh" (func 0))
;; CHECK:   (export "mh" (func 0))
;; CHECK:   (export "nh" (func 0))
;; CHECK:   (export "oh" (func 0))
;; CHECK:   (export "ph" (func 0))
;; CHECK:   (export "qh" (func 0))
;; CHECK:   (export "rh" (func 0))
;; CHECK:   (export "sh" (func 0))
;; CHECK:   (export "th" (func 0))
;; CHECK:   (export "uh" (func 0))
;; CHECK:   (export "vh" (func 0))
;; CHECK:   (export "wh" (func 0))
;; CHECK:   (export "xh" (func 0))
;; CHECK:   (export "yh" (func 0))
;; CHECK:   (export "zh" (func 0))
;; CHECK:   (export "Ah" (func 0))
;; CHECK:   (export "Bh" (func 0))
;; CHECK:   (export "Ch" (func 0))
;; CHECK:   (export "Dh" (func 0))
;; CHECK:   (export "Eh" (func 0))
;; CHECK:   (export "Fh" (func 0))
;; CHECK:   (export "Gh" (func 0))
;; CHECK:   (export "Hh" (func 0))
;; CHECK:   (export "Ih" (func 0))
;; CHECK:   (export "Jh" (func 0))
;; CHECK:   (export "Kh" (func 0))
;; CHECK:   (export "Lh" (func 0))
;; CHECK:   (export "Mh" (func 0))
;; CHECK:   (export "Nh" (func 0))
;; CHECK:   (export "Oh" (func 0))
;; CHECK:   (export "Ph" (func 0))
;; CHECK:   (export "Qh" (func 0))
;; CHECK:   (export "Rh" (func 0))
;; CHECK:   (export "Sh" (func 0))
;; CHECK:   (export "Th" (func 0))
;; CHECK:   (export "Uh" (func 0))
;; CHECK:   (export "Vh" (func 0))
;; CHECK:   (export "Wh" (func 0))
;; CHECK:   (export "Xh" (func 0))
;; CHECK:   (export "Yh" (func 0))
;; CHECK:   (export "Zh" (func 0))
;; CHECK:   (export "_h" (func 0))
;; CHECK:   (export "$h" (func 0))
;; CHECK:   (export "ai" (func 0))
;; CHECK:   (export "bi" (func 0))
;; CHECK:   (export "ci" (func 0))
;; CHECK:   (export "di" (func 0))
;; CHECK:   (export "ei" (func 0))
;; CHECK:   (export "fi" (func 0))
;; CHECK:   (export "gi" (func 0))
;; CHECK:   (export "hi" (func 0))
;; CHECK:   (export "ii" (func 0))
;; CHECK:   (export "ji" (func 0))
;; CHECK:   (export "ki" (func 0))
;; CHECK:   (export "li" (func 0))
;; CHECK:   (export "mi" (func 0))
;; CHECK:   (export "ni" (func 0))
;; CHECK:   (export "oi" (func 0))
;; CHECK:   (export "pi" (func 0))
;; CHECK:   (export "qi" (func 0))
;; CHECK:   (export "ri" (func 0))
;; CHECK:   (export "si" (func 0))
;; CHECK:   (export "ti" (func 0))
;; CHECK:   (export "ui" (func 0))
;; CHECK:   (export "vi" (func 0))
;; CHECK:   (export "wi" (func 0))
;; CHECK:   (export "xi" (func 0))
;; CHECK:   (export "yi" (func 0))
;; CHECK:   (export "zi" (func 0))
;; CHECK:   (export "Ai" (func 0))
;; CHECK:   (export "Bi" (func 0))
;; CHECK:   (export "Ci" (func 0))
;; CHECK:   (export "Di" (func 0))
;; CHECK:   (export "Ei" (func 0))
;; CHECK:   (export "Fi" (func 0))
;; CHECK:   (export "Gi" (func 0))
;; CHECK:   (export "Hi" (func 0))
;; CHECK:   (export "Ii" (func 0))
;; CHECK:   (export "Ji" (func 0))
;; CHECK:   (export "Ki" (func 0))
;; CHECK:   (export "Li" (func 0))
;; CHECK:   (export "Mi" (func 0))
;; CHECK:   (export "Ni" (func 0))
;; CHECK:   (export "Oi" (func 0))
;; CHECK:   (export "Pi" (func 0))
;; CHECK:   (export "Qi" (func 0))
;; CHECK:   (export "Ri" (func 0))
;; CHECK:   (export "Si" (func 0))
;; CHECK:   (export "Ti" (func 0))
;; CHECK:   (export "Ui" (func 0))
;; CHECK:   (export "Vi" (func 0))
;; CHECK:   (export "Wi" (func 0))
;; CHECK:   (export "Xi" (func 0))
;; CHECK:   (export "Yi" (func 0))
;; CHECK:   (export "Zi" (func 0))
;; CHECK:   (export "_i" (func 0))
;; CHECK:   (export "$i" (func 0))
;; CHECK:   (export "aj" (func 0))
;; CHECK:   (export "bj" (func 0))
;; CHECK:   (export "cj" (func 0))
;; CHECK:   (export "dj" (func 0))
;; CHECK:   (export "ej" (func 0))
;; CHECK:   (export "fj" (func 0))
;; CHECK:   (export "gj" (func 0))
;; CHECK:   (export "hj" (func 0))
;; CHECK:   (export "ij" (func 0))
;; CHECK:   (export "jj" (func 0))
;; CHECK:   (export "kj" (func 0))
;; CHECK:   (export "lj" (func 0))
;; CHECK:   (export "mj" (func 0))
;; CHECK:   (export "nj" (func 0))
;; CHECK:   (export "oj" (func 0))
;; CHECK:   (export "pj" (func 0))
;; CHECK:   (export "qj" (func 0))
;; CHECK:   (export "rj" (func 0))
;; CHECK:   (export "sj" (func 0))
;; CHECK:   (export "tj" (func 0))
;; CHECK:   (export "uj" (func 0))
;; CHECK:   (export "vj" (func 0))
;; CHECK:   (export "wj" (func 0))
;; CHECK:   (export "xj" (func 0))
;; CHECK:   (export "yj" (func 0))
;; CHECK:   (export "zj" (func 0))
;; CHECK:   (export "Aj" (func 0))
;; CHECK:   (export "Bj" (func 0))
;; CHECK:   (export "Cj" (func 0))
;; CHECK:   (export "Dj" (func 0))
;; CHECK:   (export "Ej" (func 0))
;; CHECK:   (export "Fj" (func 0))
;; CHECK:   (export "Gj" (func 0))
;; CHECK:   (export "Hj" (func 0))
;; CHECK:   (export "Ij" (func 0))
;; CHECK:   (export "Jj" (func 0))
;; CHECK:   (export "Kj" (func 0))
;; CHECK:   (export "Lj" (func 0))
;; CHECK:   (export "Mj" (func 0))
;; CHECK:   (export "Nj" (func 0))
;; CHECK:   (export "Oj" (func 0))
;; CHECK:   (export "Pj" (func 0))
;; CHECK:   (export "Qj" (func 0))
;; CHECK:   (export "Rj" (func 0))
;; CHECK:   (export "Sj" (func 0))
;; CHECK:   (export "Tj" (func 0))
;; CHECK:   (export "Uj" (func 0))
;; CHECK:   (export "Vj" (func 0))
;; CHECK:   (export "Wj" (func 0))
;; CHECK:   (export "Xj" (func 0))
;; CHECK:   (export "Yj" (func 0))
;; CHECK:   (export "Zj" (func 0))
;; CHECK:   (export "_j" (func 0))
;; CHECK:   (export "$j" (func 0))
;; CHECK:   (export "ak" (func 0))
;; CHECK:   (export "bk" (func 0))
;; CHECK:   (export "ck" (func 0))
;; CHECK:   (export "dk" (func 0))
;; CHECK:   (export "ek" (func 0))
;; CHECK:   (export "fk" (func 0))
;; CHECK:   (export "gk" (func 0))
;; CHECK:   (export "hk" (func 0))
;; CHECK:   (export "ik" (func 0))
;; CHECK:   (export "jk" (func 0))
;; CHECK:   (export "kk" (func 0))
;; CHECK:   (export "lk" (func 0))
;; CHECK:   (export "mk" (func 0))
;; CHECK:   (export "nk" (func 0))
;; CHECK:   (export "ok" (func 0))
;; CHECK:   (export "pk" (func 0))
;; CHECK:   (export "qk" (func 0))
;; CHECK:   (export "rk" (func 0))
;; CHECK:   (export "sk" (func 0))
;; CHECK:   (export "tk" (func 0))
;; CHECK:   (export "uk" (func 0))
;; CHECK:   (export "vk" (func 0))
;; CHECK:   (export "wk" (func 0))
;; CHECK:   (export "xk" (func 0))
;; CHECK:   (export "yk" (func 0))
;; CHECK:   (export "zk" (func 0))
;; CHECK:   (export "Ak" (func 0))
;; CHECK:   (export "Bk" (func 0))
;; CHECK:   (export "Ck" (func 0))
;; CHECK:   (export "Dk" (func 0))
;; CHECK:   (export "Ek" (func 0))
;; CHECK:   (export "Fk" (func 0))
;; CHECK:   (export "Gk" (func 0))
;; CHECK:   (export "Hk" (func 0))
;; CHECK:   (export "Ik" (func 0))
;; CHECK:   (export "Jk" (func 0))
;; CHECK:   (export "Kk" (func 0))
;; CHECK:   (export "Lk" (func 0))
;; CHECK:   (export "Mk" (func 0))
;; CHECK:   (export "Nk" (func 0))
;; CHECK:   (export "Ok" (func 0))
;; CHECK:   (export "Pk" (func 0))
;; CHECK:   (export "Qk" (func 0))
;; CHECK:   (export "Rk" (func 0))
;; CHECK:   (export "Sk" (func 0))
;; CHECK:   (export "Tk" (func 0))
;; CHECK:   (export "Uk" (func 0))
;; CHECK:   (export "Vk" (func 0))
;; CHECK:   (export "Wk" (func 0))
;; CHECK:   (export "Xk" (func 0))
;; CHECK:   (export "Yk" (func 0))
;; CHECK:   (export "Zk" (func 0))
;; CHECK:   (export "_k" (func 0))
;; CHECK:   (export "$k" (func 0))
;; CHECK:   (export "al" (func 0))
;; CHECK:   (export "bl" (func 0))
;; CHECK:   (export "cl" (func 0))
;; CHECK:   (export "dl" (func 0))
;; CHECK:   (export "el" (func 0))
;; CHECK:   (export "fl" (func 0))
;; CHECK:   (export "gl" (func 0))
;; CHECK:   (export "hl" (func 0))
;; CHECK:   (export "il" (func 0))
;; CHECK:   (export "jl" (func 0))
;; CHECK:   (export "kl" (func 0))
;; CHECK:   (export "ll" (func 0))
;; CHECK:   (export "ml" (func 0))
;; CHECK:   (export "nl" (func 0))
;; CHECK:   (export "ol" (func 0))
;; CHECK:   (export "pl" (func 0))
;; CHECK:   (export "ql" (func 0))
;; CHECK:   (export "rl" (func 0))
;; CHECK:   (export "sl" (func 0))
;; CHECK:   (export "tl" (func 0))
;; CHECK:   (export "ul" (func 0))
;; CHECK:   (export "vl" (func 0))
;; CHECK:   (export "wl" (func 0))
;; CHECK:   (export "xl" (func 0))
;; CHECK:   (export "yl" (func 0))
;; CHECK:   (export "zl" (func 0))
;; CHECK:   (export "Al" (func 0))
;; CHECK:   (export "Bl" (func 0))
;; CHECK:   (export "Cl" (func 0))
;; CHECK:   (export "Dl" (func 0))
;; CHECK:   (export "El" (func 0))
;; CHECK:   (export "Fl" (func 0))
;; CHECK:   (export "Gl" (func 0))
;; CHECK:   (export "Hl" (func 0))
;; CHECK:   (export "Il" (func 0))
;; CHECK:   (export "Jl" (func 0))
;; CHECK:   (export "Kl" (func 0))
;; CHECK:   (export "Ll" (func 0))
;; CHECK:   (export "Ml" (func 0))
;; CHECK:   (export "Nl" (func 0))
;; CHECK:   (export "Ol" (func 0))
;; CHECK:   (export "Pl" (func 0))
;; CHECK:   (export "Ql" (func 0))
;; CHECK:   (export "Rl" (func 0))
;; CHECK:   (export "Sl" (func 0))
;; CHECK:   (export "Tl" (func 0))
;; CHECK:   (export "Ul" (func 0))
;; CHECK:   (export "Vl" (func 0))
;; CHECK:   (export "Wl" (func 0))
;; CHECK:   (export "Xl" (func 0))
;; CHECK:   (export "Yl" (func 0))
;; CHECK:   (export "Zl" (func 0))
;; CHECK:   (export "_l" (func 0))
;; CHECK:   (export "$l" (func 0))
;; CHECK:   (export "am" (func 0))
;; CHECK:   (export "bm" (func 0))
;; CHECK:   (export "cm" (func 0))
;; CHECK:   (export "dm" (func 0))
;; CHECK:   (export "em" (func 0))
;; CHECK:   (export "fm" (func 0))
;; CHECK:   (export "gm" (func 0))
;; CHECK:   (export "hm" (func 0))
;; CHECK:   (export "im" (func 0))
;; CHECK:   (export "jm" (func 0))
;; CHECK:   (export "km" (func 0))
;; CHECK:   (export "lm" (func 0))
;; CHECK:   (export "mm" (func 0))
;; CHECK:   (export "nm" (func 0))
;; CHECK:   (export "om" (func 0))
;; CHECK:   (export "pm" (func 0))
;; CHECK:   (export "qm" (func 0))
;; CHECK:   (export "rm" (func 0))
;; CHECK:   (export "sm" (func 0))
;; CHECK:   (export "tm" (func 0))
;; CHECK:   (export "um" (func 0))
;; CHECK:   (export "vm" (func 0))
;; CHECK:   (export "wm" (func 0))
;; CHECK:   (export "xm" (func 0))
;; CHECK:   (export "ym" (func 0))
;; CHECK:   (export "zm" (func 0))
;; CHECK:   (export "Am" (func 0))
;; CHECK:   (export "Bm" (func 0))
;; CHECK:   (export "Cm" (func 0))
;; CHECK:   (export "Dm" (func 0))
;; CHECK:   (export "Em" (func 0))
;; CHECK:   (export "Fm" (func 0))
;; CHECK:   (export "Gm" (func 0))
;; CHECK:   (export "Hm" (func 0))
;; CHECK:   (export "Im" (func 0))
;; CHECK:   (export "Jm" (func 0))
;; CHECK:   (export "Km" (func 0))
;; CHECK:   (export "Lm" (func 0))
;; CHECK:   (export "Mm" (func 0))
;; CHECK:   (export "Nm" (func 0))
;; CHECK:   (export "Om" (func 0))
;; CHECK:   (export "Pm" (func 0))
;; CHECK:   (export "Qm" (func 0))
;; CHECK:   (export "Rm" (func 0))
;; CHECK:   (export "Sm" (func 0))
;; CHECK:   (export "Tm" (func 0))
;; CHECK:   (export "Um" (func 0))
;; CHECK:   (export "Vm" (func 0))
;; CHECK:   (export "Wm" (func 0))
;; CHECK:   (export "Xm" (func 0))
;; CHECK:   (export "Ym" (func 0))
;; CHECK:   (export "Zm" (func 0))
;; CHECK:   (export "_m" (func 0))
;; CHECK:   (export "$m" (func 0))
;; CHECK:   (export "an" (func 0))
;; CHECK:   (export "bn" (func 0))
;; CHECK:   (export "cn" (func 0))
;; CHECK:   (export "dn" (func 0))
;; CHECK:   (export "en" (func 0))
;; CHECK:   (export "fn" (func 0))
;; CHECK:   (export "gn" (func 0))
;; CHECK:   (export "hn" (func 0))
;; CHECK:   (export "jn" (func 0))
;; CHECK:   (export "kn" (func 0))
;; CHECK:   (export "ln" (func 0))
;; CHECK:   (export "mn" (func 0))
;; CHECK:   (export "nn" (func 0))
;; CHECK:   (export "on" (func 0))
;; CHECK:   (export "pn" (func 0))
;; CHECK:   (export "qn" (func 0))
;; CHECK:   (export "rn" (func 0))
;; CHECK:   (export "sn" (func 0))
;; CHECK:   (export "tn" (func 0))
;; CHECK:   (export "un" (func 0))
;; CHECK:   (export "vn" (func 0))
;; CHECK:   (export "wn" (func 0))
;; CHECK:   (export "xn" (func 0))
;; CHECK:   (export "yn" (func 0))
;; CHECK:   (export "zn" (func 0))
;; CHECK:   (export "An" (func 0))
;; CHECK:   (export "Bn" (func 0))
;; CHECK:   (export "Cn" (func 0))
;; CHECK:   (export "Dn" (func 0))
;; CHECK:   (export "En" (func 0))
;; CHECK:   (export "Fn" (func 0))
;; CHECK:   (export "Gn" (func 0))
;; CHECK:   (export "Hn" (func 0))
;; CHECK:   (export "In" (func 0))
;; CHECK:   (export "Jn" (func 0))
;; CHECK:   (export "Kn" (func 0))
;; CHECK:   (export "Ln" (func 0))
;; CHECK:   (export "Mn" (func 0))
;; CHECK:   (export "Nn" (func 0))
;; CHECK:   (export "On" (func 0))
;; CHECK:   (export "Pn" (func 0))
;; CHECK:   (export "Qn" (func 0))
;; CHECK:   (export "Rn" (func 0))
;; CHECK:   (export "Sn" (func 0))
;; CHECK:   (export "Tn" (func 0))
;; CHECK:   (export "Un" (func 0))
;; CHECK:   (export "Vn" (func 0))
;; CHECK:   (export "Wn" (func 0))
;; CHECK:   (export "Xn" (func 0))
;; CHECK:   (export "Yn" (func 0))
;; CHECK:   (export "Zn" (func 0))
;; CHECK:   (export "_n" (func 0))
;; CHECK:   (export "$n" (func 0))
;; CHECK:   (export "ao" (func 0))
;; CHECK:   (export "bo" (func 0))
;; CHECK:   (export "co" (func 0))
;; CHECK:   (export "eo" (func 0))
;; CHECK:   (export "fo" (func 0))
;; CHECK:   (export "go" (func 0))
;; CHECK:   (export "ho" (func 0))
;; CHECK:   (export "io" (func 0))
;; CHECK:   (func (;0;) (type 0))
;; CHECK: )
