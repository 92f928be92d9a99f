// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// Local-chain stand-ins for Circle's CCTP V2 (MessageTransmitterV2 and TokenMessengerV2). DEV ONLY.
/// Their external functions, events and message bytes follow CCTP V2, so a client cannot tell them
/// apart except by address; what is simplified is listed in contracts/README.md (CCTP V2 stand-ins).
/// The devnet places contracts with `anvil_setCode` (code, no storage), so their configuration
/// lives in immutables; the storage they keep (used nonces, extra attesters) starts empty.

/// The local dev USDC: `DevToken`/`DevPermitToken` have an open `mint` and no burn for others.
interface IDevMintableToken {
    function mint(address to, uint256 amount) external;
}

/// What the transmitter calls on a message's recipient (CCTP V2's IMessageHandlerV2).
interface ICctpMessageHandlerV2 {
    function handleReceiveFinalizedMessage(
        uint32 sourceDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool);

    function handleReceiveUnfinalizedMessage(
        uint32 sourceDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool);
}

// CCTP V2 finality levels: 1000 "confirmed" (Fast Transfer), 2000 "finalized" (Standard Transfer).
uint32 constant FINALITY_THRESHOLD_CONFIRMED = 1000;
uint32 constant FINALITY_THRESHOLD_FINALIZED = 2000;
// The lowest finality a burn message may be attested at.
uint32 constant TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD = 500;

// The V2 header: version(4) sourceDomain(4) destinationDomain(4) nonce(32) sender(32)
// recipient(32) destinationCaller(32) minFinalityThreshold(4) finalityThresholdExecuted(4), then the body.
uint256 constant MESSAGE_BODY_INDEX = 148;
// The BurnMessageV2 body: version(4) burnToken(32) mintRecipient(32) amount(32) messageSender(32)
// maxFee(32) feeExecuted(32) expirationBlock(32), then hookData.
uint256 constant BURN_HOOK_DATA_INDEX = 228;

function addressToBytes32(address a) pure returns (bytes32) {
    return bytes32(uint256(uint160(a)));
}

contract CctpMessageTransmitterV2Standin {
    using ECDSA for bytes32;

    event MessageSent(bytes message);
    event MessageReceived(
        address indexed caller,
        uint32 sourceDomain,
        bytes32 indexed nonce,
        bytes32 sender,
        uint32 indexed finalityThresholdExecuted,
        bytes messageBody
    );
    event AttesterEnabled(address indexed attester);

    /// The V2 message format version.
    uint32 public constant version = 1;
    /// One signature per attestation (CCTP's m-of-n with m = 1).
    uint256 public constant signatureThreshold = 1;
    uint256 public constant maxMessageBodySize = 8192;
    uint256 private constant SIGNATURE_LENGTH = 65;

    uint32 public immutable localDomain;
    address private immutable _attester;
    address private immutable _attesterManager;

    /// nonce => 1 once received (CCTP's `usedNonces`, a uint256, not a bool).
    mapping(bytes32 => uint256) public usedNonces;
    mapping(address => bool) private _extraAttesters;

    constructor(uint32 localDomain_, address attester_) {
        require(attester_ != address(0), "New attester must be nonzero");
        localDomain = localDomain_;
        _attester = attester_;
        _attesterManager = msg.sender;
    }

    function attesterManager() external view returns (address) {
        return _attesterManager;
    }

    function isEnabledAttester(address attester) public view returns (bool) {
        return attester != address(0) && (attester == _attester || _extraAttesters[attester]);
    }

    /// Another attester, by the deployer (kept in storage: lost when the code is copied elsewhere).
    function enableAttester(address newAttester) external {
        require(msg.sender == _attesterManager, "Caller not attester manager");
        require(newAttester != address(0), "New attester must be nonzero");
        require(!isEnabledAttester(newAttester), "Attester already enabled");
        _extraAttesters[newAttester] = true;
        emit AttesterEnabled(newAttester);
    }

    /// Emits the message with its nonce and executed finality left zero: the attester fills both.
    function sendMessage(
        uint32 destinationDomain,
        bytes32 recipient,
        bytes32 destinationCaller,
        uint32 minFinalityThreshold,
        bytes calldata messageBody
    ) external {
        require(destinationDomain != localDomain, "Domain is local domain");
        require(messageBody.length <= maxMessageBodySize, "Message body exceeds max size");
        require(recipient != bytes32(0), "Recipient must be nonzero");
        emit MessageSent(
            abi.encodePacked(
                version,
                localDomain,
                destinationDomain,
                bytes32(0),
                addressToBytes32(msg.sender),
                recipient,
                destinationCaller,
                minFinalityThreshold,
                uint32(0),
                messageBody
            )
        );
    }

    /// Checks the attestation (one 65-byte r,s,v signature over keccak256(message) by an enabled
    /// attester), the destination, the caller, the version and the nonce, then hands the body to
    /// the recipient: below finalized to its unfinalized handler, else to its finalized one.
    function receiveMessage(bytes calldata message, bytes calldata attestation) external returns (bool success) {
        require(attestation.length == SIGNATURE_LENGTH * signatureThreshold, "Invalid attestation length");
        address signer = keccak256(message).recover(attestation);
        require(isEnabledAttester(signer), "Signature verification failed: signer is not enabled attester");
        require(message.length >= MESSAGE_BODY_INDEX, "Invalid message: too short");
        require(uint32(bytes4(message[8:12])) == localDomain, "Invalid destination domain");
        bytes32 destinationCaller = bytes32(message[108:140]);
        if (destinationCaller != bytes32(0)) {
            require(destinationCaller == addressToBytes32(msg.sender), "Invalid caller for message");
        }
        require(uint32(bytes4(message[0:4])) == version, "Invalid message version");
        bytes32 nonce = bytes32(message[12:44]);
        require(usedNonces[nonce] == 0, "Nonce already used");
        usedNonces[nonce] = 1;

        uint32 sourceDomain = uint32(bytes4(message[4:8]));
        bytes32 sender = bytes32(message[44:76]);
        address recipient = address(uint160(uint256(bytes32(message[76:108]))));
        uint32 finalityExecuted = uint32(bytes4(message[144:148]));
        bytes calldata body = message[MESSAGE_BODY_INDEX:];
        if (finalityExecuted < FINALITY_THRESHOLD_FINALIZED) {
            require(
                ICctpMessageHandlerV2(recipient).handleReceiveUnfinalizedMessage(sourceDomain, sender, finalityExecuted, body),
                "handleReceiveUnfinalizedMessage() failed"
            );
        } else {
            require(
                ICctpMessageHandlerV2(recipient).handleReceiveFinalizedMessage(sourceDomain, sender, finalityExecuted, body),
                "handleReceiveFinalizedMessage() failed"
            );
        }
        emit MessageReceived(msg.sender, sourceDomain, nonce, sender, finalityExecuted, body);
        return true;
    }
}

/// One USDC per chain (`localToken`). A burn moves the tokens into this contract, where they stay
/// (no function moves them out): the dev token has no burn for others. A mint uses its open `mint`.
/// Every chain's messenger sits at the same address (as CCTP V2 deploys it), which is how it knows
/// its remote messengers without storage.
contract CctpTokenMessengerV2Standin is ICctpMessageHandlerV2 {
    using SafeERC20 for IERC20;

    event DepositForBurn(
        address indexed burnToken,
        uint256 amount,
        address indexed depositor,
        bytes32 mintRecipient,
        uint32 destinationDomain,
        bytes32 destinationTokenMessenger,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 indexed minFinalityThreshold,
        bytes hookData
    );
    event MintAndWithdraw(address indexed mintRecipient, uint256 amount, address indexed mintToken, uint256 feeCollected);

    // The BurnMessageV2 body version.
    uint32 public constant messageBodyVersion = 1;

    address public immutable localMessageTransmitter;
    address public immutable localToken;
    address public immutable feeRecipient;

    constructor(address localMessageTransmitter_, address localToken_, address feeRecipient_) {
        require(localMessageTransmitter_ != address(0), "MessageTransmitter not set");
        require(localToken_ != address(0), "Zero address not allowed");
        require(feeRecipient_ != address(0), "Zero address not allowed");
        localMessageTransmitter = localMessageTransmitter_;
        localToken = localToken_;
        feeRecipient = feeRecipient_;
    }

    /// This same address on every other domain, none on the local one.
    function remoteTokenMessengers(uint32 domain) public view returns (bytes32) {
        if (domain == CctpMessageTransmitterV2Standin(localMessageTransmitter).localDomain()) return bytes32(0);
        return addressToBytes32(address(this));
    }

    function depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold
    ) external {
        _depositForBurn(amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold, "");
    }

    function depositForBurnWithHook(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold,
        bytes calldata hookData
    ) external {
        require(hookData.length > 0, "Hook data is empty");
        _depositForBurn(amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold, hookData);
    }

    function handleReceiveFinalizedMessage(uint32 remoteDomain, bytes32 sender, uint32, bytes calldata messageBody)
        external
        returns (bool)
    {
        _checkOrigin(remoteDomain, sender);
        (address mintRecipient, uint256 amount) = _validateBurnMessage(messageBody);
        _mint(mintRecipient, amount, 0);
        return true;
    }

    /// Below finalized: the fee the attester executed goes to `feeRecipient`, the rest to the recipient.
    function handleReceiveUnfinalizedMessage(
        uint32 remoteDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool) {
        _checkOrigin(remoteDomain, sender);
        require(finalityThresholdExecuted >= TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD, "Unsupported finality threshold");
        (address mintRecipient, uint256 amount) = _validateBurnMessage(messageBody);
        uint256 expirationBlock = uint256(bytes32(messageBody[196:228]));
        require(expirationBlock == 0 || expirationBlock > block.number, "Message expired and must be re-signed");
        uint256 fee = uint256(bytes32(messageBody[164:196]));
        require(fee == 0 || fee < amount, "Fee equals or exceeds amount");
        _mint(mintRecipient, amount - fee, fee);
        return true;
    }

    function _depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold,
        bytes memory hookData
    ) private {
        require(amount > 0, "Amount must be nonzero");
        require(mintRecipient != bytes32(0), "Mint recipient must be nonzero");
        require(maxFee < amount, "Max fee must be less than amount");
        require(burnToken == localToken, "Burn token not supported");
        bytes32 destinationTokenMessenger = remoteTokenMessengers(destinationDomain);
        require(destinationTokenMessenger != bytes32(0), "No TokenMessenger for domain");

        IERC20(burnToken).safeTransferFrom(msg.sender, address(this), amount);

        bytes memory burnMessage = abi.encodePacked(
            messageBodyVersion,
            addressToBytes32(burnToken),
            mintRecipient,
            amount,
            addressToBytes32(msg.sender),
            maxFee,
            uint256(0), // feeExecuted: the attester fills it
            uint256(0), // expirationBlock: the attester fills it
            hookData
        );
        CctpMessageTransmitterV2Standin(localMessageTransmitter).sendMessage(
            destinationDomain, destinationTokenMessenger, destinationCaller, minFinalityThreshold, burnMessage
        );
        emit DepositForBurn(
            burnToken,
            amount,
            msg.sender,
            mintRecipient,
            destinationDomain,
            destinationTokenMessenger,
            destinationCaller,
            maxFee,
            minFinalityThreshold,
            hookData
        );
    }

    function _checkOrigin(uint32 remoteDomain, bytes32 sender) private view {
        require(msg.sender == localMessageTransmitter, "Invalid message transmitter");
        require(sender != bytes32(0) && remoteTokenMessengers(remoteDomain) == sender, "Remote TokenMessenger unsupported");
    }

    function _validateBurnMessage(bytes calldata body) private pure returns (address mintRecipient, uint256 amount) {
        require(body.length >= BURN_HOOK_DATA_INDEX, "Invalid message: too short");
        require(uint32(bytes4(body[0:4])) == messageBodyVersion, "Invalid message body version");
        mintRecipient = address(uint160(uint256(bytes32(body[36:68]))));
        amount = uint256(bytes32(body[68:100]));
    }

    function _mint(address mintRecipient, uint256 amount, uint256 fee) private {
        IDevMintableToken(localToken).mint(mintRecipient, amount);
        if (fee > 0) IDevMintableToken(localToken).mint(feeRecipient, fee);
        emit MintAndWithdraw(mintRecipient, amount, localToken, fee);
    }
}
