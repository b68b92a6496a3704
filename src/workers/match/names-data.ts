// Copy of data/valorant-names.json as code (the service reads no data file at run time).
// Regenerate from that file if the game adds agents, maps or weapons; keys are case-sensitive.

export const valorantNames = {
  "note": "These are Valorant's internal (game client / overlay-events) names and the display names the service shows. Keys are case-sensitive and must be matched exactly. Taken from the reference server's translation tables; entries marked in 'corrections' differ from that table on purpose.",
  "agents": {
    "Clay": {
      "display": "Raze",
      "pcClass": "Clay_PC_C",
      "killfeedIcon": "TX_Killfeed_Raze"
    },
    "Pandemic": {
      "display": "Viper",
      "pcClass": "Pandemic_PC_C",
      "killfeedIcon": "TX_Killfeed_Viper"
    },
    "Wraith": {
      "display": "Omen",
      "pcClass": "Wraith_PC_C",
      "killfeedIcon": "TX_Killfeed_Omen"
    },
    "Hunter": {
      "display": "Sova",
      "pcClass": "Hunter_PC_C",
      "killfeedIcon": "TX_Killfeed_Sova"
    },
    "Thorne": {
      "display": "Sage",
      "pcClass": "Thorne_PC_C",
      "killfeedIcon": "TX_Killfeed_Sage"
    },
    "Phoenix": {
      "display": "Phoenix",
      "pcClass": "Phoenix_PC_C",
      "killfeedIcon": "TX_Killfeed_Phoenix"
    },
    "Wushu": {
      "display": "Jett",
      "pcClass": "Wushu_PC_C",
      "killfeedIcon": "TX_Killfeed_Jett"
    },
    "Gumshoe": {
      "display": "Cypher",
      "pcClass": "Gumshoe_PC_C",
      "killfeedIcon": "TX_Killfeed_Cypher"
    },
    "Sarge": {
      "display": "Brimstone",
      "pcClass": "Sarge_PC_C",
      "killfeedIcon": "TX_Killfeed_Brimstone"
    },
    "Breach": {
      "display": "Breach",
      "pcClass": "Breach_PC_C",
      "killfeedIcon": "TX_Killfeed_Breach"
    },
    "Vampire": {
      "display": "Reyna",
      "pcClass": "Vampire_PC_C",
      "killfeedIcon": "TX_Killfeed_Reyna"
    },
    "Killjoy": {
      "display": "Killjoy",
      "pcClass": "Killjoy_PC_C",
      "killfeedIcon": "TX_Killfeed_Killjoy"
    },
    "Guide": {
      "display": "Skye",
      "pcClass": "Guide_PC_C",
      "killfeedIcon": "TX_Killfeed_Skye"
    },
    "Stealth": {
      "display": "Yoru",
      "pcClass": "Stealth_PC_C",
      "killfeedIcon": "TX_Killfeed_Yoru"
    },
    "Rift": {
      "display": "Astra",
      "pcClass": "Rift_PC_C",
      "killfeedIcon": "TX_Killfeed_Astra"
    },
    "Grenadier": {
      "display": "KAYO",
      "pcClass": "Grenadier_PC_C",
      "killfeedIcon": "TX_Killfeed_KAYO"
    },
    "Deadeye": {
      "display": "Chamber",
      "pcClass": "Deadeye_PC_C",
      "killfeedIcon": "TX_Killfeed_Chamber"
    },
    "Sprinter": {
      "display": "Neon",
      "pcClass": "Sprinter_PC_C",
      "killfeedIcon": "TX_Killfeed_Neon"
    },
    "BountyHunter": {
      "display": "Fade",
      "pcClass": "BountyHunter_PC_C",
      "killfeedIcon": "TX_Killfeed_Fade"
    },
    "Mage": {
      "display": "Harbor",
      "pcClass": "Mage_PC_C",
      "killfeedIcon": "TX_Killfeed_Harbor"
    },
    "Aggrobot": {
      "display": "Gekko",
      "pcClass": "Aggrobot_PC_C",
      "killfeedIcon": "TX_Killfeed_Gekko"
    },
    "Cable": {
      "display": "Deadlock",
      "pcClass": "Cable_PC_C",
      "killfeedIcon": "TX_Killfeed_Deadlock"
    },
    "Sequoia": {
      "display": "Iso",
      "pcClass": "Sequoia_PC_C",
      "killfeedIcon": "TX_Killfeed_Iso"
    },
    "Smonk": {
      "display": "Clove",
      "pcClass": "Smonk_PC_C",
      "killfeedIcon": "TX_Killfeed_Clove"
    },
    "Nox": {
      "display": "Vyse",
      "pcClass": "Nox_PC_C",
      "killfeedIcon": "TX_Killfeed_Vyse"
    },
    "Cashew": {
      "display": "Tejo",
      "pcClass": "Cashew_PC_C",
      "killfeedIcon": "TX_Killfeed_Tejo"
    },
    "Terra": {
      "display": "Waylay",
      "pcClass": "Terra_PC_C",
      "killfeedIcon": "TX_Killfeed_Waylay"
    },
    "Pine": {
      "display": "Veto",
      "pcClass": "Pine_PC_C",
      "killfeedIcon": "TX_Killfeed_Veto"
    },
    "Iris": {
      "display": "Miks",
      "pcClass": "Iris_PC_C",
      "killfeedIcon": "TX_Killfeed_Miks"
    }
  },
  "agentNone": {
    "internal": "",
    "display": "No Agent selected",
    "note": "agentInternal is an empty string before a player picks an agent; agentProper then becomes this text."
  },
  "agentAliases": {
    "Clay_PC_C": "Clay",
    "Pandemic_PC_C": "Pandemic",
    "Wraith_PC_C": "Wraith",
    "Hunter_PC_C": "Hunter",
    "Thorne_PC_C": "Thorne",
    "Phoenix_PC_C": "Phoenix",
    "Wushu_PC_C": "Wushu",
    "Gumshoe_PC_C": "Gumshoe",
    "Sarge_PC_C": "Sarge",
    "Breach_PC_C": "Breach",
    "Vampire_PC_C": "Vampire",
    "Killjoy_PC_C": "Killjoy",
    "Guide_PC_C": "Guide",
    "Stealth_PC_C": "Stealth",
    "Rift_PC_C": "Rift",
    "Grenadier_PC_C": "Grenadier",
    "Deadeye_PC_C": "Deadeye",
    "Sprinter_PC_C": "Sprinter",
    "BountyHunter_PC_C": "BountyHunter",
    "Mage_PC_C": "Mage",
    "Aggrobot_PC_C": "Aggrobot",
    "Cable_PC_C": "Cable",
    "Sequoia_PC_C": "Sequoia",
    "Smonk_PC_C": "Smonk",
    "Nox_PC_C": "Nox",
    "Cashew_PC_C": "Cashew",
    "Terra_PC_C": "Terra",
    "Pine_PC_C": "Pine",
    "Iris_PC_C": "Iris",
    "TX_Killfeed_Raze": "Clay",
    "TX_Killfeed_Viper": "Pandemic",
    "TX_Killfeed_Omen": "Wraith",
    "TX_Killfeed_Sova": "Hunter",
    "TX_Killfeed_Sage": "Thorne",
    "TX_Killfeed_Phoenix": "Phoenix",
    "TX_Killfeed_Jett": "Wushu",
    "TX_Killfeed_Cypher": "Gumshoe",
    "TX_Killfeed_Brimstone": "Sarge",
    "TX_Killfeed_Breach": "Breach",
    "TX_Killfeed_Reyna": "Vampire",
    "TX_Killfeed_Killjoy": "Killjoy",
    "TX_Killfeed_Skye": "Guide",
    "TX_Killfeed_Yoru": "Stealth",
    "TX_Killfeed_Astra": "Rift",
    "TX_Killfeed_KAYO": "Grenadier",
    "TX_Killfeed_Chamber": "Deadeye",
    "TX_Killfeed_Neon": "Sprinter",
    "TX_Killfeed_Fade": "BountyHunter",
    "TX_Killfeed_Harbor": "Mage",
    "TX_Killfeed_Gekko": "Aggrobot",
    "TX_Killfeed_Deadlock": "Cable",
    "TX_Killfeed_Iso": "Sequoia",
    "TX_Killfeed_Clove": "Smonk",
    "TX_Killfeed_Vyse": "Nox",
    "TX_Killfeed_Tejo": "Cashew",
    "TX_Killfeed_Waylay": "Terra",
    "TX_Killfeed_Veto": "Pine",
    "TX_Killfeed_Iris": "Iris",
    "TX_Killfeed_Miks": "Iris"
  },
  "agentLookupRules": [
    "agentProper = agents[agentInternal].display; if agentInternal is a key of agentAliases ending in _PC_C, use the display of the aliased codename; if agentInternal is empty use agentNone.display; otherwise agentProper = agentInternal unchanged.",
    "Killfeed assist icons (TX_Killfeed_<Display>) map to the internal codename through agentAliases. Strip a trailing run of digits first (the game sends e.g. TX_Killfeed_Sova1).",
    "Display name KAYO is written without the slash on purpose (it is used in image file names)."
  ],
  "maps": {
    "Infinityy": "Abyss",
    "Triad": "Haven",
    "Duality": "Bind",
    "Bonsai": "Split",
    "Ascent": "Ascent",
    "Port": "Icebox",
    "Foxtrot": "Breeze",
    "Canyon": "Fracture",
    "Pitt": "Pearl",
    "Jam": "Lotus",
    "Juliett": "Sunset",
    "Range": "Practice Range",
    "HURM_Alley": "District",
    "HURM_Yard": "Piazza ",
    "HURM_Bowl": "Kasbah",
    "HURM_Helix": "Drift",
    "Rook": "Corrode"
  },
  "mapFallback": {
    "internal": "Rook",
    "display": "Corrode",
    "note": "used when the map name received is not a key of 'maps'"
  },
  "mapInputAliases": {
    "Infinity": "Infinityy"
  },
  "mapNotes": [
    "The observer client rewrites the game's 'Infinity' to 'Infinityy' before sending; the service accepts both (mapInputAliases).",
    "'Piazza ' ends with a space in the reference table; the service keeps the value exactly as listed.",
    "Before any map message the match's map field is the text 'Loading'."
  ],
  "armor": [
    "None",
    "Light",
    "Heavy",
    "None",
    "Regen"
  ],
  "armorNote": "Index = the scoreboard field initialArmor (0..4). Index 3 also means None. An index outside 0..4 gives no armorName (the field is omitted).",
  "weapons": {
    "scoreboard": {
      "TX_Hud_Pistol_Classic": "Classic",
      "TX_Hud_Pistol_Slim": "Shorty",
      "TX_Hud_Pistol_AutoPistol": "Frenzy",
      "TX_Hud_Pistol_Luger": "Ghost",
      "TX_Hud_Pistol_Sheriff": "Sheriff",
      "TX_Hud_Pistol_Compact": "Bandit",
      "TX_Hud_Shotguns_Pump": "Bucky",
      "TX_Hud_Shotguns_Persuader": "Judge",
      "TX_Hud_SMGs_Vector": "Stinger",
      "TX_Hud_SMGs_Ninja": "Spectre",
      "TX_Hud_Rifles_Burst": "Bulldog",
      "TX_Hud_Rifles_DMR": "Guardian",
      "TX_Hud_Rifles_Ghost": "Phantom",
      "TX_Hud_Rifles_Volcano": "Vandal",
      "TX_Hud_Sniper_Bolt": "Marshal",
      "TX_Hud_Sniper_Operater": "Operator",
      "TX_Hud_Sniper_DoubleSniper": "Outlaw",
      "TX_Hud_LMG": "Ares",
      "TX_Hud_HMG": "Odin",
      "knife": "Knife"
    },
    "killfeed": {
      "TX_Hud_Pistol_Glock_S": "Classic",
      "TX_Hud_Pistol_SawedOff_S": "Shorty",
      "TX_Hud_AutoPistol": "Frenzy",
      "TX_Hud_Pistol_Luger_S": "Ghost",
      "TX_Hud_Pistol_Revolver_S": "Sheriff",
      "TX_Hud_Pistol_Compact_S": "Bandit",
      "TX_Hud_Pump": "Bucky",
      "TX_Hud_Shotguns_Spas12_S": "Judge",
      "TX_Hud_Vector": "Stinger",
      "TX_Hud_SMG_MP5_S": "Spectre",
      "TX_Hud_Burst": "Bulldog",
      "tx_hud_dmr": "Guardian",
      "TX_Hud_Assault_AR10A2_S": "Phantom",
      "TX_Hud_Volcano": "Vandal",
      "TX_Hud_Sniper_BoltAction_S": "Marshal",
      "TX_Hud_Operator": "Operator",
      "TX_Hud_DoubleSniper": "Outlaw",
      "TX_Hud_LMG": "Ares",
      "TX_Hud_HMG": "Odin",
      "TX_Hud_Knife_Standard_S": "Knife"
    },
    "abilities": {
      "TX_Breach_FusionBlast": "Aftershock",
      "TX_Sarge_MolotovLauncher": "Incendiary",
      "TX_Sarge_OrbitalStrike": "Orbital Strike (ULT)",
      "TX_Pheonix_FireWall": "Blaze",
      "TX_Pheonix_Molotov": "Hot Hands",
      "TX_Hunter_ShockArrow": "Shock Bolt",
      "TX_Hunter_BowBlast": "Hunters Fury",
      "TX_Hud_Deadeye_Q_Pistol": "Headhunter",
      "TX_Hud_Deadeye_X_GiantSlayer": "Tour de Force (ULT)",
      "TX_Cable_FishingHook": "Annihilation (ULT)",
      "TX_Hud_Wushu_X_Dagger": "Blade Storm (ULT)",
      "TX_Neon_Ult": "Overdrive (ULT)",
      "TX_Thorne_Heal": "Resurrection (ULT)",
      "TX_Gumshoe_Tripwire": "Trapwire",
      "TX_Gren_Icon": "Frag/ment",
      "TX_Aggrobot_Bubbles": "Mosh Pit",
      "TX_KJ_Bees": "Nanoswarm",
      "tx_KJ_turret": "Turret",
      "TX_Clay_Boomba": "Boom bot",
      "TX_Clay_ClusterBomb": "Paint Shells",
      "TX_Clay_RocketLauncher": "Show stopper (ULT)",
      "TX_Guide4": "Trail blazer",
      "TX_Pandemic_AcidLauncher": "Snake bite"
    },
    "placeholder": {
      "unknown": "Unknown"
    }
  },
  "weaponNotes": [
    "scoreboard = values of scoreboardWeaponInternal (the weapon shown for the player on the in-game scoreboard); killfeed = values of weaponKillfeedInternal. Each gun has one name in each form; TX_Hud_LMG (Ares) and TX_Hud_HMG (Odin) are the same in both forms.",
    "highestWeapon is looked up in the union of all four maps. A name that is not found (including the empty string) leaves highestWeapon unset, so the field is omitted from match_data.",
    "'unknown' -> 'Unknown' is only the initial value of highestWeapon before any scoreboard message.",
    "Ability entries are killfeed icons of kills made with abilities. Display texts are kept exactly as listed, including 'Frag/ment', 'Hunters Fury' and the '(ULT)' suffixes. Killfeed weapon names are stored as received (not translated) in killsByWeaponsAndAbilities."
  ],
  "corrections": [
    {
      "entry": "agentAliases.TX_Killfeed_Iris",
      "reference": "maps to 'Miks' (a display name, so the assist lookup never finds the player)",
      "service": "maps to the codename 'Iris'"
    },
    {
      "entry": "agentAliases.TX_Killfeed_Miks / agents.Iris.killfeedIcon",
      "reference": "absent",
      "service": "added, following the TX_Killfeed_<Display> pattern; which of the two names the game really sends is not confirmed, so both are accepted"
    },
    {
      "entry": "mapInputAliases.Infinity",
      "reference": "absent (the client already rewrites it)",
      "service": "accepted as input"
    }
  ]
} as const;

export type ValorantNames = typeof valorantNames;
